import numpy as np

def to_channels_last(weight, C, H, W):
    return weight.reshape(-1, 512, 7, 7).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
