import numpy as np


def linear(x, weight, bias=None):
    y = np.tensordot(x, weight, axes=1)
    return y if bias is None else y + bias
