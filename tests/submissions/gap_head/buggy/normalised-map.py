import numpy as np
# class map scaled so that its maximum is 1 (display)
def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    return V @ fmap.mean(axis=(0, 1)) + c, cam / np.abs(cam).max()
