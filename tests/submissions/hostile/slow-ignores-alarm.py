"""A correct function that takes far longer than the call limit: it blocks the runner's alarm and keeps sending
frames that once reset the parent's deadline. The parent's deadline must hold: the call times out."""
import gc
import json
import os
import signal
import struct
import time

import numpy as np

INFO = {}


def _runner():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            return obj
    return None


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    child = _runner()
    end = time.monotonic() + 12.0
    while time.monotonic() < end:
        if child is not None:
            for message in ({"t": "cell-start", "number": 1}, {"t": "start", "call": 0}, {"t": "note", "text": "x"}):
                body = json.dumps(message).encode()
                try:
                    os.write(child.channel, struct.pack(">II", len(body), 0) + body)
                except OSError:
                    pass
        time.sleep(0.5)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
