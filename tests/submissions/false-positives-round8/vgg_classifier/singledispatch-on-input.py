import functools

import numpy as np


@functools.singledispatch
def as_rows(x):
    return as_rows(np.asarray(x, dtype=np.float64))


@as_rows.register
def _(x: np.ndarray):
    return x.reshape(x.shape[0], -1)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    h = np.maximum(as_rows(features) @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
