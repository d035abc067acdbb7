import numpy as np


def linear(x, weight, bias=None):
    if x.ndim == 1:
        y = x @ weight
    else:
        y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y
