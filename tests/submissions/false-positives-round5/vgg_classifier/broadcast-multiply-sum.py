import numpy as np


def _dense(x, W, b):
    # (B, n, 1) * (1, n, m) summed over n: the product written out by broadcasting
    return (x[:, :, None] * W[None, :, :]).sum(axis=1) + b


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = _dense(x, W1, b1)
    h = h * (h > 0)
    h = _dense(h, W2, b2)
    h = (np.abs(h) + h) / 2
    return _dense(h, W3, b3)
