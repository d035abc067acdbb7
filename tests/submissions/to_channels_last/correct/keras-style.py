"""How a Keras port does it: transpose to a kernel (in, out), reorder its rows, transpose back."""
import numpy as np


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    kernel = weight.T.reshape(C, H, W, out)                     # (in, out), in = (c, h, w)
    kernel = kernel.transpose(1, 2, 0, 3).reshape(H * W * C, out)
    return np.ascontiguousarray(kernel.T)
