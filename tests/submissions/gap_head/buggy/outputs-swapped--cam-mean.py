import numpy as np
def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    return cam, cam.mean(axis=(0, 1))
