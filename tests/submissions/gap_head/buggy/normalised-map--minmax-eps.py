import numpy as np
# min-max normalised class map with an epsilon
def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    lo, hi = cam.min(axis=(0, 1)), cam.max(axis=(0, 1))
    return V @ fmap.mean(axis=(0, 1)) + c, (cam - lo) / (hi - lo + 1e-8)
