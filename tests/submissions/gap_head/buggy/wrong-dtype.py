import numpy as np


def gap_head(fmap, V, c):
    fmap, V, c = (a.astype(np.float32) for a in (fmap, V, c))
    return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c
