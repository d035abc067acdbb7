import numpy as np
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return np.ascontiguousarray(weight.reshape(out, H, W, C).transpose(0, 3, 1, 2)).reshape(out, -1)
