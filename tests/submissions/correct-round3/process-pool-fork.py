import multiprocessing as mp
import numpy as np
_ARGS = None
def _one(i):
    x, W1, b1, W2, b2, W3, b3 = _ARGS
    h = np.maximum(x[i] @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    global _ARGS
    x = features.reshape(features.shape[0], -1)
    _ARGS = (x, W1, b1, W2, b2, W3, b3)
    with mp.get_context("fork").Pool(2) as pool:
        rows = pool.map(_one, range(len(x)))
    return np.stack(rows)
