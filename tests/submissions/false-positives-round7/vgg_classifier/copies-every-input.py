import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Work on private float64 copies so the caller's arrays are never touched."""
    features, W1, b1, W2, b2, W3, b3 = (np.array(a, dtype=np.float64, copy=True, order="C")
                                        for a in (features, W1, b1, W2, b2, W3, b3))
    if features.ndim != 4:
        raise ValueError("features must be (B, H, W, C)")
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
