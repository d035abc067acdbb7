import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Windows-saved: BOM, CRLF."""
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0., x @ W1 + b1)
    h2 = np.maximum(0., h1 @ W2 + b2)
    return h2 @ W3 + b3
