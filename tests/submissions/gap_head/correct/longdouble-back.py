import numpy as np

def gap_head(fmap, V, c):
    f = fmap.astype(np.longdouble)
    cmap = f @ V.T.astype(np.longdouble) + c
    logits = cmap.mean(axis=(0, 1))
    return logits.astype(np.float64), cmap.astype(np.float64)
