import numpy as np
# np.take along axis 0
def to_channels_last(weight, C, H, W):
    perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
    return np.take(weight, perm, axis=0)
