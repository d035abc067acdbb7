import numpy as np


def to_channels_last(weight, C, H, W):
    h, w, c = np.meshgrid(np.arange(H), np.arange(W), np.arange(C), indexing="ij")
    source = np.ravel_multi_index((c.ravel(), h.ravel(), w.ravel()), (C, H, W))
    return np.take(weight, source, axis=1)
