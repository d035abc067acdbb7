import numpy as np


def toChannelsLast(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
