import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    n = features.shape[0]
    x = features.reshape(n, -1, order="F")  # flatten everything except the batch
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    logits = h2 @ W3 + b3
    return logits
