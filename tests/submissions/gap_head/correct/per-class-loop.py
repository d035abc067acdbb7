import numpy as np
def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    K = len(c)
    cam = np.empty((h, w, K))
    logits = np.empty(K)
    for k in range(K):
        cam[:, :, k] = fmap @ V[k] + c[k]
        logits[k] = cam[:, :, k].mean()
    return logits, cam
