import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1))
    keep = np.random.rand(*pooled.shape) > 0.4          # GoogLeNet's dropout (40%), left on
    pooled = pooled * keep / 0.6
    return V @ pooled + c, fmap @ V.T + c
