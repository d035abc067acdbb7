import numpy as np


def to_channels_last(weight, C, H, W):
    # "the columns have to be permuted"
    return weight[:, np.random.permutation(C * H * W)]
