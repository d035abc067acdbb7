import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    scores = np.array([])
    for image in features:
        h1 = np.maximum(image.reshape(-1) @ W1 + b1, 0.0)
        h2 = np.maximum(h1 @ W2 + b2, 0.0)
        scores = np.concatenate([scores, h2 @ W3 + b3])   # one long vector, B*K values
    return scores
