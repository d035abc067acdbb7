import numpy as np

def gap_head(fmap, V, c):
    return V @ fmap.mean(axis=(0, 1)) + c, (fmap @ V.T + c).astype(np.float32)
