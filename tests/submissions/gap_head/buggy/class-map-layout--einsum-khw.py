import numpy as np
def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = np.einsum("kc,hwc->khw", V, fmap) + c[:, None, None]
    return logits, cam
