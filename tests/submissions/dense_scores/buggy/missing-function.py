import numpy as np


def denseScores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    return np.array([[weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias for j in range(W - k + 1)]
                     for i in range(H - k + 1)])
