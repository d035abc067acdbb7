import numpy as np
# loop starts at 1: row 0 stays zero
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    res = np.zeros((out, H * W * C))
    for i in range(1, out):
        res[i] = weight[i].reshape(C, H, W).transpose(1, 2, 0).ravel()
    return res
