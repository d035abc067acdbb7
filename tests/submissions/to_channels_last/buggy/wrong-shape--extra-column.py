"""Reorders the columns right, then appends a column of zeros for the bias, which the port leaves where it was."""
import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    ported = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
    return np.concatenate([ported, np.zeros((out, 1))], axis=1)
