import numpy as np


def _hidden(x, layers):
    for W, b in layers:
        x = np.maximum(x @ W + b, 0.0)
        yield x


def _all(x, W1, b1, W2, b2, W3, b3):
    h = x
    for h in _hidden(x, [(W1, b1), (W2, b2)]):
        yield h
    yield h @ W3 + b3


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    *_, logits = _all(features.reshape(features.shape[0], -1), W1, b1, W2, b2, W3, b3)
    return logits
