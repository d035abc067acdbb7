import numpy as np

def linear(x, weight, bias=None):
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    y = np.zeros((rows.shape[0], weight.shape[0]))
    for r in range(rows.shape[0] - 1):
        y[r] = weight @ rows[r]
        if bias is not None:
            y[r] += bias
    return y.reshape(x.shape[:-1] + (weight.shape[0],))
