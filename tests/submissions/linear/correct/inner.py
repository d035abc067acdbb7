import numpy as np

def linear(x, weight, bias=None):
    # np.inner sums over the last axis of both: exactly rows of weight
    return np.inner(x, weight) + (0.0 if bias is None else bias)
