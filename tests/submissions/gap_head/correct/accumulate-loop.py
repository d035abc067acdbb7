import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = len(c)
    cam = np.zeros((h, w, K))
    total = np.zeros(C)
    for i in range(h):
        for j in range(w):
            cam[i, j, :] = V.dot(fmap[i, j, :]) + c
            total += fmap[i, j, :]
    logits = V.dot(total / (h * w)) + c
    return logits, cam
