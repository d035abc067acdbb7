import numpy as np
def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    s = sum(fmap[i, j] for i in range(h) for j in range(w))
    logits = V @ (s / (h * w)) + c
    cam = np.stack([np.stack([V @ fmap[i, j] + c for j in range(w)]) for i in range(h)])
    return logits, cam
