import functools
import numpy as np
@functools.lru_cache(maxsize=None)
def _dims(shape):
    B = shape[0]
    D = 1
    for s in shape[1:]:
        D *= s
    return B, D
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, D = _dims(features.shape)
    x = features.reshape(B, D)
    h = np.maximum(0, x.dot(W1) + b1)
    h = np.maximum(0, h.dot(W2) + b2)
    return h.dot(W3) + b3
