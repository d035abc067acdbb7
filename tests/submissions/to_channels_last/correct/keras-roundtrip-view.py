import numpy as np


def to_channels_last(weight, C, H, W):
    """Go through the Keras kernel layout and come back: the returned array is a transposed (F-ordered) view."""
    kernel = weight.T.reshape(C, H, W, -1)          # (C, H, W, out)
    kernel = kernel.transpose(1, 2, 0, 3).reshape(H * W * C, -1)  # (HWC, out)
    return kernel.T
