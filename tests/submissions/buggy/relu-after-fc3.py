import numpy as np


def relu(z):
    return np.maximum(0.0, z)


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    x = features.reshape(features.shape[0], -1)
    h1 = relu(x @ W1 + b1)
    h2 = relu(h1 @ W2 + b2)
    y = relu(h2 @ W3 + b3)
    return y
