import numpy as np
# logits = max of the class map over positions
def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    logits = cam.max(axis=(0, 1))
    return logits, cam
