import numpy as np

def linear(x, weight, bias=None):
    m, n = weight.shape
    y = np.zeros(x.shape[:-1] + (m,))
    for i in range(1, n):
        y += x[..., i, None] * weight[:, i]
    return y if bias is None else y + bias
