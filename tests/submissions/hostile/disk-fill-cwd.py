"""Fills the working directory: one file past the file-size limit, then many (at most 128 MiB in all)."""
import os

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    written = 0
    if os.path.exists("big.bin"):
        raise RuntimeError("already filled")
    block = b"x" * (4 << 20)
    try:
        with open("big.bin", "wb") as handle:
            for _ in range(8):
                handle.write(block)
                written += len(block)
    except OSError:
        pass
    try:
        for n in range(24):
            with open(f"fill-{n}.bin", "wb") as handle:
                handle.write(block)
            written += len(block)
    except OSError as exc:
        raise RuntimeError(f"wrote {written >> 20} MiB in {os.getcwd()}, then {exc}")
    raise RuntimeError(f"wrote {written >> 20} MiB in {os.getcwd()}")
