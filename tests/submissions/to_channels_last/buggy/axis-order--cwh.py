import numpy as np
# C first kept, H/W swapped
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 1, 3, 2).reshape(out, -1)
