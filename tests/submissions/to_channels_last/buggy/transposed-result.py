import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    kernel = weight.T.reshape(C, H, W, out)          # Keras-style kernel, (in, out)
    return kernel.transpose(1, 2, 0, 3).reshape(H * W * C, out)   # ...never transposed back
