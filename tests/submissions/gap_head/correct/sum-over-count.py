import numpy as np

def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    pooled = fmap.sum(axis=0).sum(axis=0) / float(h * w)
    return np.dot(V, pooled) + c, np.dot(fmap, V.T) + c
