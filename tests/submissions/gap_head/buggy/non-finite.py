import numpy as np


def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = fmap @ V.T + c
    low, high = cam.min(axis=(0, 1)), cam.max(axis=(0, 1))
    cam = (cam - low) / (high - low)          # each class's heat map in [0, 1], for plotting
    return logits, cam
