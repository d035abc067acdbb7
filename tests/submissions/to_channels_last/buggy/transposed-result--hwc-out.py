import numpy as np
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    k = weight.reshape(out, C, H, W).transpose(2, 3, 1, 0)   # (H, W, C, out) like a Keras kernel
    return k.reshape(H * W * C, out)
