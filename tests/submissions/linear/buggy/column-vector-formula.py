import numpy as np


def linear(x, weight, bias=None):
    # y = W x + b
    y = weight @ x
    if bias is not None:
        y = y + bias
    return y
