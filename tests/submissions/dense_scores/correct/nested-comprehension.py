import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, _ = fmap.shape
    rows = [[weight @ fmap[i:i + k, j:j + k].ravel() + bias for j in range(W - k + 1)] for i in range(H - k + 1)]
    return np.array(rows, dtype=np.float64)
