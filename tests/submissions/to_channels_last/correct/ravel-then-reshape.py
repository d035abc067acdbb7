import numpy as np
def to_channels_last(weight, C, H, W):
    t = weight.reshape(weight.shape[0], C, H, W).transpose(0, 2, 3, 1)
    return t.ravel().reshape(weight.shape[0], -1)
