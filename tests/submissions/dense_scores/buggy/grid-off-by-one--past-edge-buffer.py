import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 2, W - k + 2, weight.shape[0]))
    for i in range(H - k + 2):
        for j in range(W - k + 2):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].reshape(k * k * C) + bias
    return out
