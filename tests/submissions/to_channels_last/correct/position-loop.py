import numpy as np


def to_channels_last(weight, C, H, W):
    """Position by position: the C weights of each (h, w) sit together in the new layout."""
    result = np.zeros_like(weight)
    for h in range(H):
        for w in range(W):
            k = (h * W + w) * C
            result[:, k:k + C] = weight[:, h * W + w::H * W]
    return result
