import numpy as np
# F-order reshape to (C, H*W)
def to_channels_last(weight, C, H, W):
    return np.array([row.reshape(C, H * W, order="F").ravel() for row in weight])
