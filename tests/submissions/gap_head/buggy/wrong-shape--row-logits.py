import numpy as np
# logits as a (1, K) row
def gap_head(fmap, V, c):
    p = fmap.reshape(1, -1, fmap.shape[2]).mean(axis=1)
    return p @ V.T + c, fmap @ V.T + c
