import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    logits = V @ fmap.reshape(-1, C).mean(axis=0) + c
    return logits, (fmap.reshape(-1, C) @ V.T + c).reshape(h, w, -1)
