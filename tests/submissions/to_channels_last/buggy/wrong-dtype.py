import numpy as np


def to_channels_last(weight, C, H, W):
    small = weight.astype(np.float32)      # half the memory
    out = small.shape[0]
    return small.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
