import numpy as np


def to_channels_last(weight, C, H, W):
    out, n = weight.shape
    target = np.arange(n).reshape(C, H, W).transpose(1, 2, 0).reshape(-1)
    new = np.zeros((out, n))
    new[:, target] = weight
    return new
