import numpy as np

def linear(x, weight, bias=None):
    n = weight.shape[1]
    y = sum(x[..., i, None] * weight[:, i] for i in range(n))
    if bias is not None:
        y = y + bias
    return np.asarray(y, dtype=np.float64)
