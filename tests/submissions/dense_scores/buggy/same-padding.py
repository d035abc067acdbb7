import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    p0, p1 = (k - 1) // 2, k // 2
    padded = np.pad(fmap, ((p0, p1), (p0, p1), (0, 0)))
    out = np.zeros((H, W, weight.shape[0]))
    for i in range(H):
        for j in range(W):
            out[i, j] = weight @ padded[i:i + k, j:j + k].ravel() + bias
    return out
