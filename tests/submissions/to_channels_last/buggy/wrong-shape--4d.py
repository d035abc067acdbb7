import numpy as np
def to_channels_last(weight, C, H, W):
    return weight.reshape(weight.shape[0], C, H, W).transpose(0, 2, 3, 1).copy()
