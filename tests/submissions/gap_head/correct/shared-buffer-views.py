import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    rows = np.concatenate([fmap.mean(axis=(0, 1))[None, :], fmap.reshape(-1, C)], axis=0)  # (1 + h*w, C)
    scores = rows @ V.T + c                                                              # (1 + h*w, K)
    return scores[0], scores[1:].reshape(h, w, K)   # two views of one float64 buffer
