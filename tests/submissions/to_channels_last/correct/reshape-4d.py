import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    w4 = weight.reshape(out, C, H, W)
    return w4.transpose(0, 2, 3, 1).reshape(out, H * W * C)
