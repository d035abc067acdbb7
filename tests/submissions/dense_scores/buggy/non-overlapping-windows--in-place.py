import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(0, H - k + 1, k):
        for j in range(0, W - k + 1, k):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
    return out
