"""Finds the runner's kernel among the process's objects after the function is defined and takes away the module it
encodes every answer with: the cell's answer fails in the runner's own code. (It used to replace ``memoryview``; the
runner's modules now keep their own builtins.) The parent must say the submission broke the runner, not that it
exited."""
import gc

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3


for _kernel in [o for o in gc.get_objects() if type(o).__name__ == "Child" and hasattr(o, "wire")]:
    _kernel.wire = None
