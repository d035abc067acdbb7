import numpy as np
def to_channels_last(weight, C, H, W):
    src = np.arange(C * H * W)
    c, rest = np.divmod(src, H * W)
    h, w = np.divmod(rest, W)
    dest = h * W * C + w * C + c
    result = np.empty_like(weight)
    result[:, dest] = weight
    return result
