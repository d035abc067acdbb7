import numpy as np


def linear(x, weight, bias=None):
    if x.ndim == 1:
        y = weight @ x
    else:
        y = np.swapaxes(weight @ np.swapaxes(x, -1, -2), -1, -2)
    if bias is not None:
        y = y + bias
    return y
