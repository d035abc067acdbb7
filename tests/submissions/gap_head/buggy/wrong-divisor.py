import numpy as np
# divided by fmap.size = h*w*C, not by h*w
def gap_head(fmap, V, c):
    pooled = fmap.sum(axis=(0, 1)) / fmap.size
    return V @ pooled + c, fmap @ V.T + c
