import numpy as np
# heat map normalised to [0, 1] per class
def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = fmap @ V.T + c
    cam = (cam - cam.min(axis=(0, 1))) / (cam.max(axis=(0, 1)) - cam.min(axis=(0, 1)))
    return logits, cam
