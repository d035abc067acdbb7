import numpy as np

def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return np.einsum("ochw->ohwc", weight.reshape(o, C, H, W)).reshape(o, -1)
