import numpy as np
def gap_head(fmap, V, c):
    F = fmap.astype(np.longdouble)
    logits = (V.astype(np.longdouble) @ F.mean(axis=(0, 1)) + c).astype(np.float64)
    cam = np.matmul(fmap.reshape(-1, fmap.shape[-1]), V.T).reshape(*fmap.shape[:2], -1) + c
    return logits, cam
