import numpy as np


def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    class_map = fmap @ V.T + c
    return logits.tolist(), class_map
