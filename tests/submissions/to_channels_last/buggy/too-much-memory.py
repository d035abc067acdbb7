import numpy as np


def to_channels_last(weight, C, H, W):
    n = C * H * W
    P = np.zeros((n, n))
    for c in range(C):
        for h in range(H):
            for w in range(W):
                P[c * H * W + h * W + w, h * W * C + w * C + c] = 1.0
    return weight @ P
