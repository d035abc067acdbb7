import functools

import numpy as np


@functools.cache
def _path(shape_a: tuple, shape_b: tuple) -> list:
    a, b = np.empty(shape_a), np.empty(shape_b)
    return np.einsum_path("bi,ij->bj", a, b, optimize="optimal")[0]


def _fc(a, W, b):
    out = np.empty((a.shape[0], W.shape[1]))
    np.einsum("bi,ij->bj", a, W, optimize=_path(a.shape, W.shape), out=out)
    out += b
    return out


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return _fc(np.maximum(_fc(np.maximum(_fc(x, W1, b1), 0), W2, b2), 0), W3, b3)
