import numpy as np


def to_channels_last(weight, C, H, W):
    HW = H * W
    new = np.zeros((weight.shape[0], HW * C))
    for c in range(C):
        new[:, c::C] = weight[:, c * HW:(c + 1) * HW]
    return new
