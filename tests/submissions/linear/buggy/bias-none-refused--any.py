import numpy as np

def linear(x, weight, bias=None):
    y = x.dot(weight.T)
    return y + bias if bias.any() else y
