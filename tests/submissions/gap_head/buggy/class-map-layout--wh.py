import numpy as np
# w, h, K
def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = np.einsum("ijc,kc->jik", fmap, V) + c
    return logits, cam
