import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows = []
    for j in range(W - k + 1):
        rows.append([weight @ fmap[i:i + k, j:j + k].ravel() + bias for i in range(H - k + 1)])
    return np.array(rows)
