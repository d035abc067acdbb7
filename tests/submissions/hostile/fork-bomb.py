"""Forks exponentially (at most 2**9 processes, in case nothing limits it); the children sleep, then leave."""
import os
import time

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    origin = os.getpid()
    refused = 0
    for _ in range(9):
        try:
            os.fork()
        except OSError:
            refused += 1
            break
    if os.getpid() != origin:
        time.sleep(INFO.get("linger", 20))
        os._exit(0)
    raise RuntimeError(f"forks refused: {refused}")
