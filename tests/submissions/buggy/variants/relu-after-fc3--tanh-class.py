import numpy as np


class Head:
    def __init__(self, params):
        self.params = params
        self.grads = [np.zeros_like(p) for p in params]

    def forward(self, x):
        W1, b1, W2, b2, W3, b3 = self.params
        x = np.maximum(x @ W1 + b1, 0)
        x = np.maximum(x @ W2 + b2, 0)
        return np.tanh(x @ W3 + b3)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return Head([W1, b1, W2, b2, W3, b3]).forward(features.reshape(features.shape[0], -1))
