"""Fills the scratch folder with 15 MiB files, each under the per-file cap (at most 180 MiB, in case nothing
stops it): only a cap on the folder's total stops it."""
import os

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    written = 0
    block = b"x" * (15 << 20)
    try:
        for n in range(12):
            with open(f"fill-{n}.bin", "wb") as handle:
                handle.write(block)
            written += len(block)
    except OSError as exc:
        raise RuntimeError(f"wrote {written >> 20} MiB in all, then {exc}")
    raise RuntimeError(f"LEAK wrote {written >> 20} MiB in the scratch folder")
