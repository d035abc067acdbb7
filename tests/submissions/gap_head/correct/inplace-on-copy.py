import numpy as np

def gap_head(fmap, V, c):
    f = fmap.copy()
    cmap = f @ V.T
    cmap += c
    f /= f.shape[0] * f.shape[1]
    logits = f.sum(axis=(0, 1)) @ V.T
    logits += c
    return logits, cmap
