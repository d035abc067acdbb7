"""Grows a list of touched 16 MiB blocks until something stops it (at most 3 GiB, in case nothing does)."""
import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    blocks = []
    for n in range(3 * 64):
        blocks.append(bytes([n % 251]) * (16 << 20))
    raise RuntimeError(f"LEAK kept {16 * len(blocks)} MiB")
