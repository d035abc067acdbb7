import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1), keepdims=True)     # (1, 1, C)
    return pooled @ V.T + c, fmap @ V.T + c
