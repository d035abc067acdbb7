import numpy as np


class vgg_classifier:
    """Called like a function: __new__ returns the logits, so no instance is ever made."""

    def __new__(cls, features, W1, b1, W2, b2, W3, b3):
        x = features.reshape(features.shape[0], -1)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
