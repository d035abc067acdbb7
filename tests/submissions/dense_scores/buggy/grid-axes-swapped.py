import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((W - k + 1, H - k + 1, weight.shape[0]))
    for x in range(W - k + 1):  # x along the width, y along the height
        for y in range(H - k + 1):
            out[x, y] = weight @ fmap[y:y + k, x:x + k].reshape(-1) + bias
    return out
