import numpy as np


def dense_scores(fmap, weight, bias, k):
    H = fmap.shape[0]
    n = H - k + 1                       # the map is square
    out = np.zeros((n, n, weight.shape[0]))
    for i in range(n):
        for j in range(n):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
    return out
