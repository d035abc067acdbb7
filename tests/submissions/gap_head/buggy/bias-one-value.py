import numpy as np

def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1))
    logits = V @ pooled + c.sum()
    return logits, fmap @ V.T + c
