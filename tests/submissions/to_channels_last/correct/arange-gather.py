import numpy as np


def to_channels_last(weight, C, H, W):
    # source column of each target column
    src = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).flatten()
    return weight[:, src]
