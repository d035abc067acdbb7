import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            for o in range(weight.shape[0]):
                total = bias[o]
                p = 0
                for u in range(k):
                    for v in range(k):
                        for c in range(C):
                            total += weight[o, p] * fmap[i + u, j + v, c]
                            p += 1
                out[i, j, o] = total
    return out
