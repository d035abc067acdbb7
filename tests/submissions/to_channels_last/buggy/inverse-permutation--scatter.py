import numpy as np
def to_channels_last(weight, C, H, W):
    perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
    result = np.empty_like(weight)
    result[:, perm] = weight
    return result
