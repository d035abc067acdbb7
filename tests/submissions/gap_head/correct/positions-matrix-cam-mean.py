import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    X = fmap.reshape(h * w, C)           # one row per position
    scores = X @ V.T + c                 # (h*w, K)
    logits = scores.mean(axis=0)         # mean of the class map == logits
    return logits, scores.reshape(h, w, -1)
