import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y + np.random.normal(0.0, 1e-3, y.shape)  # a little noise, as in training
