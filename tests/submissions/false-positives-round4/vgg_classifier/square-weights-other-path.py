import numpy as np


def _dense(h, W, b):
    if W.shape[0] == W.shape[1]:
        # a square layer: written as (W^T h^T)^T, the same product
        return (W.T @ h.T).T + b
    return h @ W + b


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(_dense(x, W1, b1), 0.0)
    h2 = np.maximum(_dense(h1, W2, b2), 0.0)
    return _dense(h2, W3, b3)
