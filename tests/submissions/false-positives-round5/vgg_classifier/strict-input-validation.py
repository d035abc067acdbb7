import numpy as np


def _check(name, a, ndim):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(a).__name__}")
    if a.dtype != np.float64:
        raise TypeError(f"{name} must be float64, got {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got {a.ndim}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} has NaN or inf")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    for name, a, nd in (("features", features, 4), ("W1", W1, 2), ("b1", b1, 1), ("W2", W2, 2), ("b2", b2, 1),
                        ("W3", W3, 2), ("b3", b3, 1)):
        _check(name, a, nd)
    B, H, W, C = features.shape
    if W1.shape[0] != H * W * C:
        raise ValueError(f"W1 has {W1.shape[0]} rows, expected {H * W * C}")
    if not (W1.shape[1] == b1.shape[0] == W2.shape[0] and W2.shape[1] == b2.shape[0] == W3.shape[0]
            and W3.shape[1] == b3.shape[0]):
        raise ValueError("layer sizes do not chain")
    x = features.reshape(B, H * W * C)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    assert out.shape == (B, W3.shape[1]) and out.dtype == np.float64
    return out
