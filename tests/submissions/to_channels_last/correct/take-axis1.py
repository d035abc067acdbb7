import numpy as np

def to_channels_last(weight, C, H, W):
    idx = np.arange(C * H * W).reshape(C, H * W).T.reshape(-1)
    return np.take(weight, idx, axis=1)
