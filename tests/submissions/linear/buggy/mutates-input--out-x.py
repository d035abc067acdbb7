import numpy as np


def linear(x, weight, bias=None):
    # save memory: when the layer keeps the size, write the product into x
    if weight.shape[0] == weight.shape[1]:
        y = np.matmul(x, weight.T, out=x)
    else:
        y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y
