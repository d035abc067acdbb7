import sys

import numpy as np

np.set_printoptions(precision=3, suppress=True, threshold=20, linewidth=120, floatmode="fixed")
sys.setrecursionlimit(10_000)


def _forward(x, layers):
    if not layers:
        return x
    (W, b, relu), *rest = layers
    z = x @ W + b
    return _forward(np.maximum(z, 0) if relu else z, rest)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return _forward(features.reshape(features.shape[0], -1), [(W1, b1, True), (W2, b2, True), (W3, b3, False)])
