import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    result = np.empty((out, H * W * C), dtype=weight.dtype)
    for i in range(out):
        result[i] = weight[i].reshape(C, H, W).transpose(1, 2, 0).ravel()
    return result
