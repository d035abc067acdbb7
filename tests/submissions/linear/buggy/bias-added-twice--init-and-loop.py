import numpy as np

def linear(x, weight, bias=None):
    m, n = weight.shape
    b = np.zeros(m) if bias is None else bias
    y = np.broadcast_to(b, x.shape[:-1] + (m,)).copy()
    for i in range(n):
        y += x[..., i, None] * weight[:, i] + b / n * (i == 0) * n
    return y
