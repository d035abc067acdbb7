import types

import numpy as np


def _head(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x.dot(W1) + b1, 0.0)
    h = np.maximum(h.dot(W2) + b2, 0.0)
    return h.dot(W3) + b3


vgg_classifier = types.FunctionType(_head.__code__, globals(), "vgg_classifier", _head.__defaults__,
                                    _head.__closure__)
del _head
