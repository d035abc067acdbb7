import numpy as np
from typing import Final

_SCRATCH: Final[dict] = {}


def _scratch(shape: tuple) -> np.ndarray:
    """One buffer per shape: layers of equal width share it (matmul copies overlapping operands)."""
    try:
        return _SCRATCH[shape]
    except KeyError:
        return _SCRATCH.setdefault(shape, np.empty(shape))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    h = np.matmul(features.reshape(B, -1), W1, out=_scratch((B, W1.shape[1])))
    h += b1
    np.maximum(h, 0.0, out=h)
    h = np.matmul(h, W2, out=_scratch((B, W2.shape[1])))
    h += b2
    np.maximum(h, 0.0, out=h)
    y = np.matmul(h, W3, out=_scratch((B, W3.shape[1])))
    y += b3
    return np.copy(y)
