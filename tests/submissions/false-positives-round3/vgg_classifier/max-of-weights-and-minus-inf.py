import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # np.maximum with -inf, and a bias's positive and negative parts put back together: no value changes
    W1 = np.maximum(W1, -np.inf)
    b1 = np.maximum(b1, 0) + np.minimum(b1, 0)
    b2 = np.maximum(b2, 0) - np.maximum(-b2, 0)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
