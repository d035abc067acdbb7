"""VGG classifier head with strict input checks."""
from __future__ import annotations

import numpy as np

__all__ = ["vgg_classifier"]


def _require(name: str, a: object, ndim: int) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name}: expected np.ndarray, got {type(a).__name__}")
    if a.dtype != np.float64:
        raise TypeError(f"{name}: expected float64, got {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim}-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN/inf")
    return a


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    _require("features", features, 4)
    for n, w in (("W1", W1), ("W2", W2), ("W3", W3)):
        _require(n, w, 2)
    for n, b in (("b1", b1), ("b2", b2), ("b3", b3)):
        _require(n, b, 1)
    B, H, W, C = features.shape
    if B < 1:
        raise ValueError("batch must hold at least one image")
    assert W1.shape == (H * W * C, b1.shape[0]), (W1.shape, b1.shape)
    assert W2.shape == (W1.shape[1], b2.shape[0]), (W2.shape, b2.shape)
    assert W3.shape == (W2.shape[1], b3.shape[0]), (W3.shape, b3.shape)
    x = features.reshape(B, -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    logits = h2 @ W3 + b3
    if logits.shape != (B, W3.shape[1]):
        raise RuntimeError("unexpected output shape")
    return logits
