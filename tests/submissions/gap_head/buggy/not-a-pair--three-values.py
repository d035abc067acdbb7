import numpy as np
# returns the right pair, then the pooled features as a third value
def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1))
    return V @ pooled + c, fmap @ V.T + c, pooled
