import numpy as np
def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    cam = fmap @ V.T + c
    fmap /= h * w
    logits = V @ fmap.sum(axis=(0, 1)) + c
    return logits, cam
