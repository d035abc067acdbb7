"""Sends tens of thousands of distinct notes through the runner's own shell, hoping each becomes a warning
(a huge result.json, grader memory and CPU)."""
import gc

import numpy as np

INFO = {}
shell = get_ipython()  # noqa: F821  (the runner provides it, as Jupyter does)
child = getattr(shell, "child", None)
for n in range(40000):
    if child is not None:
        child.send({"t": "note", "text": f"note {n} " + "x" * 200})
    else:
        shell.system(f"echo {n}")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return np.zeros((features.shape[0], W3.shape[1]))
