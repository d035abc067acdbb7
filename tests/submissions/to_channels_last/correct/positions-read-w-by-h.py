import numpy as np


def to_channels_last(weight, C, H, W):
    # the positions read as a W x H grid: only their flat index matters, so this equals reading H x W
    out = weight.shape[0]
    return weight.reshape(out, C, W, H).transpose(0, 2, 3, 1).reshape(out, -1)
