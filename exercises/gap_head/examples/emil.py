import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1))
    logits = V @ pooled + c
    heatmaps = np.stack([fmap @ V[k] + c[k] for k in range(V.shape[0])])   # one map per class
    return logits, heatmaps
