import numpy as np
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, H, W, C).reshape(out, H * W * C).copy()
