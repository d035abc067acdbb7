import numpy as np
def to_channels_last(weight, C, H, W):
    c, h, w = np.unravel_index(np.arange(C * H * W), (C, H, W))
    dest = h * W * C + w * C + c
    return weight[:, np.argsort(dest)]
