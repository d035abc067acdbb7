import functools

import numpy as np


def forward(x, w1, c1, w2, c2, w3, c3):
    z = x.reshape(x.shape[0], -1)
    z = np.maximum(z @ w1 + c1, 0)
    z = np.maximum(z @ w2 + c2, 0)
    return z @ w3 + c3


@functools.wraps(forward)
def vgg_classifier(*args):
    return forward(*args)
