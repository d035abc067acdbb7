import numpy as np


def linear(x, weight, bias=None):
    # one input vector in, one output vector out
    y = weight @ x.flatten()
    if bias is not None:
        y = y + bias
    return y
