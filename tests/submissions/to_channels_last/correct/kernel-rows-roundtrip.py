import numpy as np
def to_channels_last(weight, C, H, W):
    kernel = weight.T  # (C*H*W, out), as Keras would hold it
    kernel = kernel.reshape(C, H, W, -1).transpose(1, 2, 0, 3).reshape(H * W * C, -1)
    return kernel.T.copy()
