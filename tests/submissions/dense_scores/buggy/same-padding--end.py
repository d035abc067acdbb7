import numpy as np


def dense_scores(fmap, weight, bias, k):
    # one score per position of the map: windows at the bottom and right edges see zeros past the edge
    H, W, C = fmap.shape
    big = np.zeros((H + k - 1, W + k - 1, C))
    big[:H, :W] = fmap
    out = np.empty((H, W, weight.shape[0]))
    for i in range(H):
        for j in range(W):
            out[i, j] = big[i:i + k, j:j + k].reshape(-1) @ weight.T + bias
    return out
