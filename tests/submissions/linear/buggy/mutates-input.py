import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    weight *= 0.999  # weight decay, left over from the training loop
    return y
