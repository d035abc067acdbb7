import numpy as np


def linear(x, weight, bias=None):
    # make the shapes line up: transpose only if needed
    if x.shape[-1] == weight.shape[0]:
        y = x @ weight
    else:
        y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y
