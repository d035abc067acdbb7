import numpy as np


def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    # the bias shaped for one heat map per class, (K, h, w)
    class_map = fmap @ V.T + c[:, None, None]
    return logits, class_map
