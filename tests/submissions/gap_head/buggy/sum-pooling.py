import numpy as np


def gap_head(fmap, V, c):
    # F_k = sum over x, y of f_k(x, y)   (Zhou et al., eq. 1)
    pooled = fmap.sum(axis=(0, 1))
    return V @ pooled + c, fmap @ V.T + c
