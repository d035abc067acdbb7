import numpy as np


def linear(x, weight, bias=None):
    y = np.atleast_2d(x) @ weight.T
    if bias is not None:
        y = y + bias
    return np.squeeze(y)
