import numpy as np
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    weight[:] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
    return weight
