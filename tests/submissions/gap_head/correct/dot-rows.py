import numpy as np
def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    flat = fmap.reshape(h * w, C)
    cam = V.dot(flat.T).T + c
    logits = V.dot(flat.sum(0) / flat.shape[0]) + c
    return logits, cam.reshape(h, w, len(c))
