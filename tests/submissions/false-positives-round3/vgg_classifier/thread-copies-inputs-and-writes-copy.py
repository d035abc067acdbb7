import threading
import time
import numpy as np

_normalised = {}


def _normalise_later(features):
    time.sleep(0.003)
    mine = features.copy()  # its own copy, changed in place; the caller's array is left alone
    mine -= mine.mean()
    _normalised["last"] = mine


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    threading.Thread(target=_normalise_later, args=(features,), daemon=True).start()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
