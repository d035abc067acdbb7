import numpy as np


def linear(x, weight, bias=None):
    # a batch is summarised by its mean input vector
    v = x.mean(axis=0) if x.ndim > 1 else x
    y = weight @ v
    if bias is not None:
        y = y + bias
    return y
