import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            v = fmap[i:i + k, j:j + k].reshape(-1)
            for o in range(m):
                out[i, j, o] = weight[0] @ v + bias[o]
    return out
