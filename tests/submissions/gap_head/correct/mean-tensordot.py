import numpy as np

def gap_head(fmap, V, c):
    p = np.mean(fmap, axis=(0, 1))
    logits = np.dot(V, p) + c
    cam = np.tensordot(fmap, V, axes=([2], [1])) + c
    return (logits, cam)
