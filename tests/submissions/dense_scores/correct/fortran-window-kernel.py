import numpy as np
def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    # flatten windows column-major over (c, v, u) and permute the weight to the same order
    kern_f = weight.reshape(m, k, k, C).transpose(0, 3, 2, 1).reshape(m, -1)
    out = np.empty((H - k + 1, W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = kern_f @ fmap[i:i + k, j:j + k].ravel(order="F") + bias
    return out
