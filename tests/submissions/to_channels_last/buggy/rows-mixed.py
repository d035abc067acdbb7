import numpy as np
# correct Keras kernel, then reshaped to (out, n) instead of transposed back
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    kernel = weight.T.reshape(C, H, W, out).transpose(1, 2, 0, 3)
    return kernel.reshape(out, H * W * C)
