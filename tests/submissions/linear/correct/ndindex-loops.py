import numpy as np


def linear(x, weight, bias=None):
    m, n = weight.shape
    out = np.zeros(x.shape[:-1] + (m,))
    for idx in np.ndindex(*x.shape[:-1]):
        vec = x[idx]
        for j in range(m):
            s = 0.0
            for i in range(n):
                s += vec[i] * weight[j, i]
            if bias is not None:
                s += bias[j]
            out[idx + (j,)] = s
    return out
