import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    K = weight.reshape(m, k, k, C)
    out = np.zeros((H - k + 1, W - k + 1, m))
    for u in range(k):
        for v in range(k):
            out += fmap[u:u + H - k + 1, v:v + W - k + 1, :] @ K[:, u, v, :].T + bias
    return out
