import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    class_map = np.empty((h, w, K))
    total = np.zeros(C)
    for i in range(h):
        for j in range(w):
            class_map[i, j] = V @ fmap[i, j] + c
            total += fmap[i, j]
    logits = V @ (total / (h * w)) + c
    return logits, class_map
