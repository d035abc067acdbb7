import numpy as np


def dense_scores(fmap, weight, bias, k):
    """Sum over kernel offsets: each offset (u, v) contributes a 1x1 convolution of a shifted map."""
    H, W, C = fmap.shape
    m = weight.shape[0]
    kern = weight.reshape(m, k, k, C)
    Ho, Wo = H - k + 1, W - k + 1
    acc = np.broadcast_to(bias, (Ho, Wo, m)).copy()
    for u in range(k):
        for v in range(k):
            acc += fmap[u:u + Ho, v:v + Wo, :] @ kern[:, u, v, :].T
    return acc
