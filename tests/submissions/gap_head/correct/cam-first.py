"""The class activation map first (a 1x1 convolution), then its average: the same logits, as Zhou et al. note."""
import numpy as np


def gap_head(fmap, V, c):
    class_map = np.tensordot(fmap, V, axes=([2], [1])) + c     # (h, w, K)
    logits = class_map.mean(axis=(0, 1))
    return logits, class_map
