import numpy as np

def linear(x, weight, bias=None):
    y = (x @ weight.T) / weight.shape[1]
    return y if bias is None else y + bias
