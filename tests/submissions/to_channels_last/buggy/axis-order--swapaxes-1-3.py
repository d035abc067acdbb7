import numpy as np
# W, H, C
def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return weight.reshape(o, C, H, W).swapaxes(1, 3).reshape(o, -1)
