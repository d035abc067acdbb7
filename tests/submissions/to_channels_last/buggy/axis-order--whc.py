import numpy as np
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 3, 2, 1).reshape(out, -1)
