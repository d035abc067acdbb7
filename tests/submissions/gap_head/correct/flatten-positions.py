import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    positions = fmap.reshape(h * w, C)            # one row per position
    scores = positions @ V.T + c                  # (h*w, K)
    logits = V.dot(positions.sum(axis=0) / (h * w)) + c
    return logits, scores.reshape(h, w, -1)
