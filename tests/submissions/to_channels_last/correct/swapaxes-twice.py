import numpy as np

def to_channels_last(weight, C, H, W):
    t = weight.reshape(weight.shape[0], C, H, W)
    t = t.swapaxes(1, 2).swapaxes(2, 3)          # (out, H, W, C)
    return np.ascontiguousarray(t).reshape(weight.shape[0], -1)
