import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows = []
    for i in range(H - k):
        row = []
        for j in range(W - k):
            row.append(fmap[i:i + k, j:j + k].reshape(-1) @ weight.T + bias)
        rows.append(row)
    return np.array(rows)
