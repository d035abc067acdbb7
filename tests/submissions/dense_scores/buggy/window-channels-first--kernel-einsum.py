import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    kernels = weight.reshape(m, C, k, k)            # like a PyTorch conv weight
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            patch = fmap[i:i + k, j:j + k, :]
            out[i, j] = np.einsum("uvc,ocuv->o", patch, kernels) + bias
    return out
