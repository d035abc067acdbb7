import numpy as np

def gap_head(fmap, V, c):
    pooled = fmap[::2, ::2].mean(axis=(0, 1))    # every other position is enough
    return V @ pooled + c, fmap @ V.T + c
