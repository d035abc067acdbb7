import numpy as np

def dense_scores(fmap, weight, bias, k):
    p = k // 2
    f = np.pad(fmap, ((p, k - 1 - p), (p, k - 1 - p), (0, 0)))
    H, W, C = fmap.shape
    out = np.zeros((H, W, weight.shape[0]))
    for i in range(H):
        for j in range(W):
            out[i, j] = weight @ f[i:i + k, j:j + k].ravel() + bias
    return out
