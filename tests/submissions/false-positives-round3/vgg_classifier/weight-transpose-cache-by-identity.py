import numpy as np

_prepared = {}


def _contiguous(W):
    key = (id(W), W.shape, W.ctypes.data, hash(W.tobytes()))
    if key not in _prepared:
        _prepared.clear()
        _prepared[key] = np.ascontiguousarray(W)
    return _prepared[key]


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ _contiguous(W1) + b1, 0)
    h = np.maximum(h @ _contiguous(W2) + b2, 0)
    return h @ _contiguous(W3) + b3
