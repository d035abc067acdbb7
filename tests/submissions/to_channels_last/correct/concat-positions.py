import numpy as np
def to_channels_last(weight, C, H, W):
    P = H * W
    return np.concatenate([weight[:, p::P] for p in range(P)], axis=1)
