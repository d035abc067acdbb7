"""Writes one malformed frame (a result whose fields have the wrong types) on the runner's channel."""
import gc
import json
import os
import struct

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            body = json.dumps({"t": "result", "seq": None, "status": ["ok"], "shape": "big",
                               "array": {"dtype": "O", "shape": [1]}}).encode()
            os.write(obj.channel, struct.pack(">II", len(body), 8) + body + b"\0" * 8)
            break
    return np.zeros((features.shape[0], W3.shape[1]))
