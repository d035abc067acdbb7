import numpy as np


def to_channels_last(weight, C, H, W):
    # group the positions as one block, then put channels last
    o = weight.shape[0]
    x = weight.reshape(o, C, W, H)
    x = x.transpose(0, 2, 3, 1)
    return x.reshape(o, -1).copy()
