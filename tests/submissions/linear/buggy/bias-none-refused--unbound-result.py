import numpy as np


def linear(x, weight, bias=None):
    if bias is not None:
        y = x @ weight.T + bias
    return y
