import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(-1, W1.shape[0])  # rows of d_in values: one per sample, whatever B is
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return np.add(h2 @ W3, b3[np.newaxis, :])
