import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    moved = weight.reshape(out, C, H, W).transpose(0, 2, 3)   # one axis left out of the order
    return moved.reshape(out, -1)
