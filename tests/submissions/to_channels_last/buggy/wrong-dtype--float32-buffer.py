import numpy as np

def to_channels_last(weight, C, H, W):
    out = np.empty((weight.shape[0], H * W * C), dtype=np.float32)
    for c in range(C):
        out[:, c::C] = weight[:, c * H * W:(c + 1) * H * W]
    return out
