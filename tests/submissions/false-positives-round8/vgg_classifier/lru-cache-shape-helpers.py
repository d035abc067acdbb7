import functools

import numpy as np


@functools.lru_cache(maxsize=None)
def _flat_size(shape: tuple) -> int:
    size = 1
    for n in shape[1:]:
        size *= n
    return size


@functools.lru_cache(maxsize=32)
def _layer_plan(in_dim: int, d1: int, d2: int, k: int) -> tuple:
    return ((in_dim, d1, True), (d1, d2, True), (d2, k, False))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], _flat_size(features.shape))
    params = {0: (W1, b1), 1: (W2, b2), 2: (W3, b3)}
    for i, (_n_in, _n_out, relu) in enumerate(_layer_plan(x.shape[1], W1.shape[1], W2.shape[1], W3.shape[1])):
        W, b = params[i]
        x = x @ W + b
        if relu:
            x = np.maximum(x, 0)
    return x
