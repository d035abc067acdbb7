import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1).copy()  # our own copy: scaling it leaves the caller's alone
    x *= 0.5
    h = np.maximum(x @ (2.0 * W1) + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
