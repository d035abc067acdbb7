import numpy as np


def linear(x, weight, bias=None):
    y = x.astype(np.float32) @ weight.T.astype(np.float32)
    if bias is not None:
        y = y + bias.astype(np.float32)
    return y.astype(np.float64)
