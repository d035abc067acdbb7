import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    kernel = weight.reshape(k, k, C, m)      # HWIO, as in TensorFlow
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = np.tensordot(fmap[i:i + k, j:j + k], kernel, axes=3) + bias
    return out
