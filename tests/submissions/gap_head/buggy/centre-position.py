import numpy as np

def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    cam = fmap @ V.T + c
    return cam[h // 2, w // 2].copy(), cam
