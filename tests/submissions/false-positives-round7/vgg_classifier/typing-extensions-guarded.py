import sys

import numpy as np

if sys.version_info >= (3, 12):
    from typing import override
else:
    try:
        from typing_extensions import override
    except ImportError:
        def override(f):
            return f


class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, x):
        return x @ self.W + self.b


class ReLU(Layer):
    @override
    def forward(self, x):
        return np.maximum(super().forward(x), 0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    return Layer(W3, b3).forward(ReLU(W2, b2).forward(ReLU(W1, b1).forward(x)))
