import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    h, w = H - k + 1, W - k + 1
    cols = np.empty((h * w, k * k * C))
    n = 0
    for i in range(h):
        for j in range(w):
            cols[n] = fmap[i:i + k, j:j + k].ravel()
            n += 1
    return (cols @ weight.T + bias).reshape(h, w, -1)
