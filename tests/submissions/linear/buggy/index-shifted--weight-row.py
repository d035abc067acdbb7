import numpy as np

def linear(x, weight, bias=None):
    m = weight.shape[0]
    y = np.zeros(x.shape[:-1] + (m,))
    for j in range(1, m + 1):
        y[..., j - 1] = x @ weight[j % m]
    if bias is not None:
        y += bias
    return y
