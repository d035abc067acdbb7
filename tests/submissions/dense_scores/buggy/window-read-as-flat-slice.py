import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    n = k * k * C
    flat = fmap.ravel()
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            start = (i * W + j) * C          # where the window's first value is stored
            out[i, j] = weight @ flat[start:start + n] + bias
    return out
