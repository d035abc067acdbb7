import numpy as np


def linear(x, weight, bias=None):
    # y[..., o] = sum_i x[..., i] * W[o, i]
    out = np.einsum("...i,oi->...o", x, weight)
    if bias is not None:
        out = out + bias
    return out
