import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    S = V @ fmap.reshape(-1, C).T + c[:, None]  # (K, h*w)
    return S.mean(axis=1), S.reshape(h, w, K)   # reshaped where it had to be transposed
