"""Floods stdout (256 MiB at most): the grader drops what is past the limit, warns, and grades the answer."""
import sys

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    line = "x" * 1023 + "\n"
    for _ in range(256 * 1024):
        sys.stdout.write(line)
    return np.zeros((features.shape[0], W3.shape[1]))
