import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 2, W - k + 2, len(bias)))  # one extra row and column
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = fmap[i:i + k, j:j + k].ravel() @ weight.T + bias
    return out
