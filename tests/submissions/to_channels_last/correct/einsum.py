import numpy as np


def to_channels_last(weight, C, H, W):
    # o = output unit, c = channel, h = row, w = column
    cube = np.einsum("ochw->ohwc", weight.reshape(weight.shape[0], C, H, W))
    return np.ascontiguousarray(cube).reshape(weight.shape[0], H * W * C)
