import numpy as np

def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = fmap @ V.T + c
    cam = cam - cam.mean(axis=(0, 1))
    return logits, cam
