import numpy as np


def linear(x, weight, bias=None):
    """Flatten the leading axes, one 2-D product, then put them back."""
    lead = x.shape[:-1]
    n = x.shape[-1]
    m = weight.shape[0]
    flat = np.reshape(x, (-1, n))
    y = np.dot(flat, weight.T)
    if bias is not None:
        y += bias[np.newaxis, :]
    return y.reshape(lead + (m,))
