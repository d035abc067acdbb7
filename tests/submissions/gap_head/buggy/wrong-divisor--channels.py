import numpy as np
# divided by C instead of h*w
def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pooled = fmap.sum(axis=(0, 1)) / C
    return V @ pooled + c, fmap @ V.T + c
