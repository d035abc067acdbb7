import numpy as np


def to_channels_last(weight, C, H, W):
    o = len(weight)
    t = np.einsum("ochw->ohwc", weight.reshape(o, C, H, W))
    res = t.reshape(o, H * W * C)
    return res.astype(np.float64)
