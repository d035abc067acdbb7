import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pooled = np.zeros(C)
    for i in range(h - 1):
        for j in range(w):
            pooled += fmap[i, j]
    pooled /= h * w
    return V @ pooled + c, fmap @ V.T + c
