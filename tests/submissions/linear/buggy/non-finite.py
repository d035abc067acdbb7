import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y / (y > 0)  # meant to keep the positive outputs
