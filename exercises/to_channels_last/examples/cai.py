import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    # channels to the end
    return weight.reshape(out, C, H, W).transpose(0, 3, 2, 1).reshape(out, H * W * C)
