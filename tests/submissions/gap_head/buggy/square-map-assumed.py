import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    logits = V @ fmap.mean(axis=(0, 1)) + c
    class_map = np.zeros((h, w, V.shape[0]))
    for i in range(h):
        for j in range(h):
            class_map[i, j] = V @ fmap[i, j] + c
    return logits, class_map
