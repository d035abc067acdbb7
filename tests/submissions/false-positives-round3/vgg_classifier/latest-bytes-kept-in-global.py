import numpy as np

_last_bytes = None


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    global _last_bytes
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    _last_bytes = logits.tobytes()  # an immutable snapshot, new on every call
    return np.frombuffer(_last_bytes, dtype=np.float64).reshape(logits.shape)
