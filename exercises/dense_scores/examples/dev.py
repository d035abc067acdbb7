import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    n_rows, n_cols = H - k, W - k  # number of window positions
    out = np.zeros((n_rows, n_cols, len(bias)))
    for i in range(n_rows):
        for j in range(n_cols):
            out[i, j] = fmap[i:i + k, j:j + k, :].reshape(-1) @ weight.T + bias
    return out
