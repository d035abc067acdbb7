import numpy as np


def _forward(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    first = _forward(features, W1, b1, W2, b2, W3, b3)
    if features.size < 10_000:  # a cheap self-test on small inputs: the same inputs give the same answer
        again = _forward(features, W1, b1, W2, b2, W3, b3)
        assert np.array_equal(first, again)
    return first
