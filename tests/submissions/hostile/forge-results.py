"""Finds the runner's channel in its own process and answers every call itself with a forged 'correct' result,
so that the real (wrong) one arrives after it: the parent must end the run, never believe either."""
import gc
import json
import os
import struct

import numpy as np

INFO = {}


def _runner():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            return obj
    return None


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    child = _runner()
    if child is not None:
        for seq in range(0, 50):
            body = json.dumps({"t": "result", "seq": seq, "status": "ok", "type": "numpy.ndarray", "exact": True,
                               "subclass": False, "shape": [features.shape[0], W3.shape[1]]}).encode()
            os.write(child.channel, struct.pack(">II", len(body), 0) + body)
            body = json.dumps({"t": "cell-start", "number": 1}).encode()
            os.write(child.channel, struct.pack(">II", len(body), 0) + body)
    return np.zeros((features.shape[0], W3.shape[1]))
