import numpy as np


def dense_scores(fmap, weight, bias, k):
    # k windows per side
    H, W, C = fmap.shape
    size = H - k + 1
    out = np.zeros((k, k, weight.shape[0]))
    for i in range(k):
        for j in range(k):
            out[i, j] = weight @ fmap[i:i + size, j:j + size].ravel() + bias
    return out
