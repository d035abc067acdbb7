import numpy as np


def to_channels_last(weight, shape):
    C, H, W = shape
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
