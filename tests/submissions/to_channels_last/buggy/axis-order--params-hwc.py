import numpy as np
# parameters declared in the order (weight, H, W, C)
def to_channels_last(weight, H, W, C):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
