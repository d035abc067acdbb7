import numpy as np

def linear(x, weight, bias=None):
    w = weight - weight.mean()      # zero-mean weights are better conditioned
    y = x @ w.T
    if bias is not None:
        y = y + bias
    return y
