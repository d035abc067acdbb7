import numpy as np

def linear(x, weight, bias=None):
    m = weight.shape[0]
    y = np.zeros(x.shape[:-1] + (m,), dtype=np.float64)
    for idx in np.ndindex(*x.shape[:-1]):
        y[idx] = weight @ x[idx]
        if bias is not None:
            y[idx] += bias
    return y
