import numpy as np


def dense_scores(fmap, weight, bias, k):
    # flatten windows and kernels the SAME (Fortran) way: the dot product does not care
    H, W, C = fmap.shape
    m = weight.shape[0]
    kern = weight.reshape(m, k, k, C)
    kf = np.stack([kern[o].ravel(order="F") for o in range(m)])
    out = np.zeros((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = kf @ fmap[i:i + k, j:j + k].ravel(order="F") + bias
    return out
