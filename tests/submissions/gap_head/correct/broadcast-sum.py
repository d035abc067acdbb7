import numpy as np


def gap_head(fmap, V, c):
    gap = np.average(fmap, axis=(0, 1))
    logits = (V * gap[None, :]).sum(axis=1) + c
    cam = (fmap[:, :, None, :] * V[None, None, :, :]).sum(axis=-1) + c
    return logits, cam
