import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            window = fmap[:k, :k, :]
            out[i, j] = weight @ window.reshape(-1) + bias
    return out
