import numpy as np


def linear(x, weight, bias, in_features, out_features):
    return x @ weight.T + bias
