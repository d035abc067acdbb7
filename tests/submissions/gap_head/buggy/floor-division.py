import numpy as np

def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pooled = fmap.sum(axis=(0, 1)) // (h * w)
    return V @ pooled + c, fmap @ V.T + c
