"""Fills /tmp with 4 MiB files (at most 128 MiB, in case nothing stops it)."""
import os

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    written = 0
    if os.path.exists(f"/tmp/grader-hostile-fill-{os.getpid()}-0"):
        raise RuntimeError("already filled")
    block = b"x" * (4 << 20)
    try:
        for n in range(32):
            with open(f"/tmp/grader-hostile-fill-{os.getpid()}-{n}", "wb") as handle:
                handle.write(block)
            written += len(block)
    except OSError as exc:
        raise RuntimeError(f"wrote {written >> 20} MiB, then {exc}")
    raise RuntimeError(f"LEAK wrote {written >> 20} MiB")
