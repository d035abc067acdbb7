import numpy as np


def linear(x, weight, bias=None):
    out_features, in_features = weight.shape
    Wt = weight.reshape(in_features, out_features)   # (in, out)
    y = x @ Wt
    if bias is not None:
        y = y + bias
    return y
