import numpy as np

def linear(x, weight, bias=None):
    y = np.dot(x, weight.T)
    if bias is not None:
        y += bias
    return y
