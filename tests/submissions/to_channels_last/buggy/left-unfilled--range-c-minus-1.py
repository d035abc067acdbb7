import numpy as np

def to_channels_last(weight, C, H, W):
    out = np.zeros((weight.shape[0], H * W * C))
    for c in range(C - 1):
        out[:, c::C] = weight[:, c * H * W:(c + 1) * H * W]
    return out
