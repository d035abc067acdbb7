import numpy as np


def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    class_map = fmap @ V.T + c
    fmap /= h * w                          # then a plain sum is the mean
    logits = V @ fmap.sum(axis=(0, 1)) + c
    return logits, class_map
