import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, /):
    """Positional-only parameters: the caller passes them in the statement's order."""
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
