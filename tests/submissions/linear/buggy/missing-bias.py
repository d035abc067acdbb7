import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T
    return y
