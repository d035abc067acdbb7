import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    mean = fmap.mean()
    fmap -= mean  # centre the map in place (and add the mean back to each window below)
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = weight @ (fmap[i:i + k, j:j + k].reshape(-1) + mean) + bias
    return out
