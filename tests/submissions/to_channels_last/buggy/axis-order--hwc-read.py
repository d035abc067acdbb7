import numpy as np
# read as (H, W, C), transpose(0, 2, 3, 1)
def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return weight.reshape(o, H, W, C).transpose(0, 2, 3, 1).reshape(o, -1)
