import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows = []
    for i in range(0, H - k + 1, k):  # one window after the other
        row = []
        for j in range(0, W - k + 1, k):
            row.append(weight @ fmap[i:i + k, j:j + k, :].reshape(-1) + bias)
        rows.append(row)
    return np.array(rows)
