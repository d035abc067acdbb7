import numpy as np

def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=0)[0]
    return V @ pooled + c, fmap @ V.T + c
