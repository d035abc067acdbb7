import numpy as np
# np.matrix
def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return np.asmatrix(weight.reshape(o, C, H, W).transpose(0, 2, 3, 1).reshape(o, -1))
