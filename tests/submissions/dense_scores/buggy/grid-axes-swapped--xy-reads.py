import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out_h, out_w = H - k + 1, W - k + 1
    res = np.zeros((out_w, out_h, weight.shape[0]))
    for x in range(out_w):
        for y in range(out_h):
            window = fmap[x:x + k, y:y + k, :]
            res[x, y, :] = weight @ window.reshape(-1) + bias
    return res.transpose(1, 0, 2)
