import numpy as np

def gap_head(fmap, V, c):
    p = np.median(fmap, axis=(0, 1))
    return V @ p + c, fmap @ V.T + c
