import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    w = weight.reshape(out, C, H, H)
    return np.transpose(w, (0, 2, 3, 1)).reshape(out, C * H * W)
