import numpy as np

_last_buffer = None  # the most recent result's storage, kept for inspection


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    global _last_buffer
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    storage = bytearray(logits.nbytes)  # fresh memory on every call
    out = np.frombuffer(storage, dtype=np.float64).reshape(logits.shape)
    out[...] = logits
    _last_buffer = storage
    return out
