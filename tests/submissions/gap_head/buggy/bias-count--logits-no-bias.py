import numpy as np
# logits without bias, class map with
def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    logits = V @ fmap.mean(axis=(0, 1))
    return logits, cam
