import numpy as np
def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return np.rollaxis(weight.reshape(o, C, H, W), 1, 4).reshape(o, H * W * C)
