import numpy as np
# flattened everything, 1-D result
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).flatten()
