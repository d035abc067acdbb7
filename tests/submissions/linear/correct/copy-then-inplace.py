import numpy as np

def linear(x, weight, bias=None):
    xc = x.copy()
    wc = weight.copy()
    y = xc @ wc.T
    if bias is not None:
        np.add(y, bias, out=y)
    return y
