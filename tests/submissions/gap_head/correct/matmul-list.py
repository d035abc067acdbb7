import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=0).mean(axis=0)
    logits = np.matmul(pooled, V.T) + c
    class_map = np.matmul(fmap, V.T) + c[np.newaxis, np.newaxis, :]
    return [logits, class_map]
