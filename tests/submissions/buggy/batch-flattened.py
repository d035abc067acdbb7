import numpy as np


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    # flatten the feature volume into one vector
    x = features.reshape(-1)

    h1 = np.maximum(0.0, x @ W1 + b1)   # FC1 + ReLU
    h2 = np.maximum(0.0, h1 @ W2 + b2)  # FC2 + ReLU
    y = h2 @ W3 + b3                    # FC3, raw logits

    return y.reshape(features.shape[0], -1)
