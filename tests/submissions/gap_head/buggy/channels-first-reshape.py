import numpy as np
# PyTorch habit: x.view(C, -1).mean(1) on a channels-last map
def gap_head(fmap, V, c):
    C = fmap.shape[2]
    pooled = fmap.reshape(C, -1).mean(axis=1)
    return V @ pooled + c, fmap @ V.T + c
