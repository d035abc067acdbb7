import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    return [[list(weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias) for j in range(W - k + 1)]
            for i in range(H - k + 1)]
