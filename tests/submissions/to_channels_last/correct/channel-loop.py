import numpy as np


def to_channels_last(weight, C, H, W):
    """One block of H*W columns per channel goes to every C-th column, starting at column c."""
    out, n = weight.shape
    result = np.empty((out, n), dtype=weight.dtype)
    positions = H * W
    for c in range(C):
        result[:, c::C] = weight[:, c * positions:(c + 1) * positions]
    return result
