import numpy as np


def to_channels_last(weight, C, H, W):
    # Keras wants kernels as (in, out)
    kernel = weight.T.reshape(C, H, W, -1).transpose(1, 2, 0, 3)
    return kernel.reshape(H * W * C, -1)
