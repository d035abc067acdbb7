import numpy as np


def linear(x, weight, bias=None):
    """Flatten the leading axes into rows, multiply, then restore them."""
    lead = x.shape[:-1]
    rows = x.reshape(-1, x.shape[-1])
    out = rows @ weight.T
    if bias is not None:
        out = out + bias[None, :]
    return out.reshape(*lead, weight.shape[0])
