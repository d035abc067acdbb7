import numpy as np

def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    pooled = fmap.mean(axis=(0, 1))
    logits = V @ pooled + c
    cam = (fmap @ V.T) / (h * w) + c     # each position's share of the logit
    return logits, cam
