import numpy as np


def gap_head(fmap, V, c):
    pooled = np.mean(fmap) * np.ones(fmap.shape[2])
    return V @ pooled + c, fmap @ V.T + c
