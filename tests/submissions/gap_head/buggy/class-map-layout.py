import numpy as np


def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    # one heat map per class, as a conv layer would give it
    class_map = np.einsum("kc,hwc->khw", V, fmap) + c[:, None, None]
    return logits, class_map
