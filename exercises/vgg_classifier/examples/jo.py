import numpy as np


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    # Jo: flatten to a vector (tested with a single 7x7x512 volume, works)
    x = features.flatten()
    x = x.reshape(1, -1)          # row vector for the matmul

    h1 = np.maximum(0.0, np.dot(x, W1) + b1)
    h2 = np.maximum(0.0, np.dot(h1, W2) + b2)
    return np.dot(h2, W3) + b3
