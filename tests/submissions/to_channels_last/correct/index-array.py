import numpy as np


def channels_last_order(C, H, W):
    """perm[k] = the channels-first column that channels-last column k comes from."""
    perm = np.empty(C * H * W, dtype=np.int64)
    k = 0
    for h in range(H):
        for w in range(W):
            for c in range(C):
                perm[k] = c * H * W + h * W + w
                k += 1
    return perm


def to_channels_last(weight, C, H, W):
    return weight[:, channels_last_order(C, H, W)]
