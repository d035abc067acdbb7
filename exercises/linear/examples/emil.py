import numpy as np


def linear(x, weight, bias=None):
    """y = W x + b with column vectors, as in the lecture notes."""
    y = np.matmul(x, weight.T)
    if bias is not None:
        y = y + bias[:, None]  # b is a column vector
    return y
