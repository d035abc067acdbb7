import numpy as np


def gap_head(fmap: np.ndarray, V: np.ndarray, c: np.ndarray):
    # i, j = position, k = channel, n = class
    class_map = np.einsum("ijk,nk->ijn", fmap, V) + c
    logits = np.einsum("ijk,nk->n", fmap, V) / (fmap.shape[0] * fmap.shape[1]) + c
    return logits, class_map
