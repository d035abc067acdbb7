"""Porting fc6 to NHWC -- Ana R."""
import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    cube = weight.reshape(out, C, H, W)                 # columns were (c, h, w)
    return np.moveaxis(cube, 1, -1).reshape(out, -1)    # now (h, w, c)
