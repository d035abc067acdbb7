import numpy as np

def linear(x, weight, bias=None):
    out = np.zeros((x.shape[0], weight.shape[0]))
    for n in range(x.shape[0]):
        out[n] = weight @ x[n]
        if bias is not None:
            out[n] += bias
    return out
