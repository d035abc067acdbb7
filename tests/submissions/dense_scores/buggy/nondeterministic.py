import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    keep = np.random.rand(*fmap.shape) > 0.1  # dropout on the map, left on
    fmap = fmap * keep / 0.9
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias
    return out
