import numpy as np


class Dense:
    __slots__ = ("W", "b")

    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


class ReLU:
    __slots__ = ()

    def __call__(self, x):
        return np.maximum(x, 0)


class Flatten:
    __slots__ = ()

    def __call__(self, x):
        return x.reshape(x.shape[0], -1)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    out = features
    for layer in (Flatten(), Dense(W1, b1), ReLU(), Dense(W2, b2), ReLU(), Dense(W3, b3)):
        out = layer(out)
    return out
