"""A correct submission that leaves non-daemon threads spinning: it must get full marks, in bounded time."""
import threading

import numpy as np

INFO = {}
_started = []


def _spin():
    while True:
        pass


threading.Thread(target=_spin, daemon=False).start()


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if not _started:
        _started.append(threading.Thread(target=_spin, daemon=False))
        _started[0].start()
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
