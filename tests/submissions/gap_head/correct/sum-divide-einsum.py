import numpy as np


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pooled = fmap.sum(axis=(0, 1)) / (h * w)
    logits = V @ pooled + c
    class_map = np.einsum("hwc,kc->hwk", fmap, V) + c
    return logits, class_map
