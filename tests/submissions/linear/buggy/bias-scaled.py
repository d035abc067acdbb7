import numpy as np


def linear(x, weight, bias=None):
    n = weight.shape[1]
    y = x @ weight.T
    if bias is not None:
        y = y + bias * n
    return y
