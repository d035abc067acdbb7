import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    class_map = np.zeros((h, w, K))
    for i in range(h):
        for j in range(w):
            for k in range(K):
                for ch in range(C):
                    class_map[i, j, k] += V[k, ch] * fmap[i, j, ch]
                class_map[i, j, k] += c[k]
    while class_map.size:       # "until converged"
        pass
    return class_map.mean(axis=(0, 1)), class_map
