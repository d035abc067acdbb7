import numpy as np

def linear(x, weight, bias=None):
    z = x @ weight.T + (bias if bias is not None else 0)
    return 1 / (1 + np.exp(-z))
