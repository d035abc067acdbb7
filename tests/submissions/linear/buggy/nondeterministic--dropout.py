import numpy as np

def linear(x, weight, bias=None):
    mask = np.random.rand(*x.shape) > 0.1
    y = (x * mask / 0.9) @ weight.T
    return y if bias is None else y + bias
