import numpy as np


def linear(x, weight, bias=None):
    x, weight = x.astype(np.float32), weight.astype(np.float32)
    y = x @ weight.T
    if bias is not None:
        y = y + bias.astype(np.float32)
    return y
