import numpy as np


def linear(x, weight, bias=None):
    # contract the last axis of x with the second axis of the weight
    y = np.tensordot(x, weight, axes=([-1], [1]))
    if bias is not None:
        y += bias
    return y
