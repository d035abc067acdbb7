import numpy as np
# logits = sum of the class map: bias counted h*w times
def gap_head(fmap, V, c):
    cam = np.einsum("hwc,kc->hwk", fmap, V) + c
    logits = cam.sum(axis=(0, 1))
    return logits, cam
