import numpy as np
def gap_head(fmap, V, c):
    cam = np.inner(fmap, V) + c
    return np.average(cam, axis=(0, 1)), cam
