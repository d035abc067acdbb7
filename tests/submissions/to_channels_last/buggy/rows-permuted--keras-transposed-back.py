import numpy as np
# flat reshape to (C, H, W, out) without transposing first
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    k = weight.reshape(C, H, W, out).transpose(1, 2, 0, 3).reshape(-1, out)
    return k.T
