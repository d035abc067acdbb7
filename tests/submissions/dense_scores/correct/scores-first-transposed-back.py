import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    out = np.empty((m, H - k + 1, W - k + 1))
    for o in range(m):
        kernel = weight[o].reshape(k, k, C)
        for i in range(H - k + 1):
            for j in range(W - k + 1):
                out[o, i, j] = np.sum(fmap[i:i + k, j:j + k] * kernel) + bias[o]
    return out.transpose(1, 2, 0)        # a view, scores last
