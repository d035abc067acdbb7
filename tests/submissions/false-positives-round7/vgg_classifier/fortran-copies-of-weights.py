import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    W1, W2, W3 = (np.asfortranarray(W) for W in (W1, W2, W3))
    x = np.ascontiguousarray(features, dtype=np.float64).reshape(features.shape[0], -1)
    h = np.maximum(np.dot(x, W1) + b1, 0)
    h = np.maximum(np.dot(h, W2) + b2, 0)
    return np.dot(h, W3) + b3
