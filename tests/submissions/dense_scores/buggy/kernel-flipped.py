import numpy as np


def dense_scores(fmap, weight, bias, k):
    # a convolution flips its kernel
    H, W, C = fmap.shape
    m = weight.shape[0]
    kern = weight.reshape(m, k, k, C)[:, ::-1, ::-1, :]
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = np.einsum("uvc,ouvc->o", fmap[i:i + k, j:j + k], kern) + bias
    return out
