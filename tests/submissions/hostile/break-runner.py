"""Replaces ``memoryview``, which the runner uses to send every answer, after the function is defined: the cell's
answer fails in the runner's own code. The parent must say the submission broke the runner, not that it exited."""
import builtins

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3


class _Broken:
    def __init__(self, *args):
        raise RuntimeError("no memoryview here")


builtins.memoryview = _Broken
