import numpy as np


class Dropout:
    def __init__(self, p):
        self.p, self.training = p, True

    def eval(self):
        self.training = False
        return self

    def __call__(self, h):
        if self.training:
            return h * (np.random.rand(*h.shape) >= self.p) / (1.0 - self.p)
        return h


drop1, drop2 = Dropout(0.5).eval(), Dropout(0.5).eval()


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = drop1(np.maximum(x @ W1 + b1, 0.0))
    h2 = drop2(np.maximum(h1 @ W2 + b2, 0.0))
    return h2 @ W3 + b3
