import numpy as np
from numba import njit, prange


@njit(cache=True, fastmath=False, parallel=True)
def relu(z):
    out = np.empty_like(z)
    for i in prange(z.shape[0]):
        for j in range(z.shape[1]):
            out[i, j] = z[i, j] if z[i, j] > 0 else 0.0
    return out


@njit
def dense(x, W, b):
    return x @ W + b


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.ascontiguousarray(features).reshape(features.shape[0], -1)
    return dense(relu(dense(relu(dense(x, W1, b1)), W2, b2)), W3, b3)
