import numpy as np


def linear(x, weight, bias=None):
    if bias is not None:
        x = x + bias
    return x @ weight.T
