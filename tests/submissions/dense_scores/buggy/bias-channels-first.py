import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel()
    return out + bias[:, None, None]
