import numpy as np


def to_channels_last(weight, C, H, W):
    # a filter's weights: C maps of H x W, moved to H x W x C
    return weight.reshape(C, H, W).transpose(1, 2, 0).reshape(1, -1)
