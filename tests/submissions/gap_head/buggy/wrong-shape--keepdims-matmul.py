import numpy as np
# keepdims
def gap_head(fmap, V, c):
    p = fmap.mean(axis=(0, 1), keepdims=True)      # (1, 1, C)
    return p @ V.T + c, fmap @ V.T + c
