import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Flatten without a copy by setting .shape (raises if a copy were needed), then put it back."""
    original = features.shape
    x = features.view()
    x.shape = (original[0], -1)
    try:
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
    finally:
        assert features.shape == original
