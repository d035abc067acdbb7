import numpy as np
def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    cam = np.empty((h, w, V.shape[0]))
    np.matmul(fmap, V.T, out=cam)
    np.add(cam, c, out=cam)
    logits = np.empty(V.shape[0])
    np.matmul(V, fmap.mean(axis=(0, 1)), out=logits)
    logits += c
    return logits, cam
