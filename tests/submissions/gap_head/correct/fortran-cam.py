import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    per_pos = (V @ fmap.reshape(-1, C).T).T + c        # (h*w, K), not C-contiguous
    cam = np.asfortranarray(per_pos.reshape(h, w, K))
    logits = np.add.reduce(fmap, axis=(0, 1)) / fmap.shape[0] / fmap.shape[1]
    logits = V @ logits + c
    return logits, cam
