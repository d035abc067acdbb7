import numpy as np


def gap_head(fmap, V, c):
    side = fmap.shape[0]  # the map taken as square, as ImageNet's 7 x 7 is
    p = fmap.sum(axis=(0, 1)) / side ** 2
    return V @ p + c, fmap @ V.T + c
