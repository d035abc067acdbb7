"""Channels to the back with np.moveaxis, as the NHWC port needs."""
import numpy as np


def to_channels_last(weight, C, H, W):
    blocks = weight.reshape(-1, C, H, W)          # (out, C, H, W)
    return np.moveaxis(blocks, 1, -1).reshape(len(weight), -1)
