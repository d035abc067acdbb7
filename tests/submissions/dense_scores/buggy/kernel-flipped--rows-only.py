import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    out = np.zeros((H - k + 1, W - k + 1, m))
    kern = weight.reshape(m, k, k, C)
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            win = fmap[i:i + k, j:j + k]
            out[i, j] = np.einsum('uvc,ouvc->o', win, kern[:, ::-1]) + bias
    return out
