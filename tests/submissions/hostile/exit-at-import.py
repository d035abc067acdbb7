"""Calls sys.exit(0) while the file is loaded, after defining a correct-looking function."""
import sys

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return np.zeros((features.shape[0], W3.shape[1]))


sys.exit(0)
