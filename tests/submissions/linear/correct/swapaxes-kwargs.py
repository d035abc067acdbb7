import numpy as np


def linear(x, weight, bias=None, **kwargs):
    y = np.matmul(x, np.swapaxes(weight, 0, 1))
    if bias is not None:
        y = np.add(y, bias)
    return np.ascontiguousarray(y, dtype=np.float64)
