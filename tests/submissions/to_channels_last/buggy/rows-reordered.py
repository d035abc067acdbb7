import numpy as np


def to_channels_last(weight, C, H, W):
    # the columns reordered right, then the rows flipped "to match the other framework's order"
    ported = weight.reshape(weight.shape[0], C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
    return np.flipud(ported).copy()
