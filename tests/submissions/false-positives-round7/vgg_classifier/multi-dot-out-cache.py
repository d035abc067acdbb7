from functools import lru_cache

import numpy as np
from numpy.linalg import multi_dot


@lru_cache(maxsize=16)
def _out(rows: int, cols: int) -> np.ndarray:
    return np.zeros((rows, cols), dtype=np.float64)


def _dense(x, W, b, relu):
    buf = _out(x.shape[0], W.shape[1])
    multi_dot([x, W], out=buf)
    buf += b
    if relu:
        np.maximum(buf, 0, out=buf)
    return buf


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.ascontiguousarray(features).reshape(features.shape[0], -1)
    h1 = _dense(x, W1, b1, True)
    h2 = _dense(h1, W2, b2, True)
    return _dense(h2, W3, b3, False).copy()
