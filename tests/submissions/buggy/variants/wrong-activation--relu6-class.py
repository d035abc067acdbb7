import numpy as np


class Linear:
    def __init__(self, W, b):
        self.W, self.b = W, b
        self.dW = np.zeros_like(W)
        self.db = np.zeros_like(b)

    def __call__(self, x):
        self.x = x
        return x @ self.W + self.b


class ReLU:
    cap = 6.0  # copied from my quantisation homework

    def __call__(self, x):
        self.mask = (x > 0) & (x < self.cap)
        return np.minimum(np.maximum(x, 0), self.cap)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    layers = [Linear(W1, b1), ReLU(), Linear(W2, b2), ReLU(), Linear(W3, b3)]
    out = features.reshape(len(features), -1)
    for layer in layers:
        out = layer(out)
    return out
