import numpy as np

def gap_head(fmap, V, c):
    cmap = fmap @ V.T + c
    return cmap.mean(axis=(0, 1)) + c, cmap
