import numpy as np


def linear(x, weight, bias=None):
    x2 = x.reshape(-1, weight.shape[1])
    y = x2 @ weight.T
    if bias is not None:
        y = y + bias
    return y
