import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            window = fmap[i:i + k, j:j + k].reshape(-1)
            window = window - window.mean()  # zero-mean windows, as in normalised cross-correlation
            out[i, j] = weight @ window + bias
    return out
