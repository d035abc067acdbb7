import numpy as np


def linear(x, weight, bias=None):
    w = weight / weight.sum(axis=1, keepdims=True)
    y = x @ w.T
    if bias is not None:
        y = y + bias
    return y
