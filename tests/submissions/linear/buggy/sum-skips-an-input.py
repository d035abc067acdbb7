import numpy as np


def linear(x, weight, bias=None):
    m, n = weight.shape
    X = x.reshape(-1, n)
    out = np.zeros((X.shape[0], m))
    for s in range(X.shape[0]):
        for j in range(m):
            acc = 0.0
            for i in range(n - 1):
                acc += X[s, i] * weight[j, i]
            out[s, j] = acc + (bias[j] if bias is not None else 0.0)
    return out.reshape(x.shape[:-1] + (m,))
