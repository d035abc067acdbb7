import numpy as np

HIDDEN = 4096
NUM_CLASSES = 1000


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    B = features.shape[0]
    x = features.reshape(B, -1)

    h1 = np.zeros((B, HIDDEN))
    h1[:] = x @ W1 + b1
    h1 = np.maximum(h1, 0.0)

    h2 = np.zeros((B, HIDDEN))
    h2[:] = h1 @ W2 + b2
    h2 = np.maximum(h2, 0.0)

    logits = np.zeros((B, NUM_CLASSES))
    logits[:] = h2 @ W3 + b3
    return logits
