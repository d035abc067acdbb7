"""VGG classifier head -- Ben K.

I wanted to try einsum for this one. The index letters:
  b = sample in the batch, i = flattened input feature,
  j = FC1 unit, k = FC2 unit, c = class.
"""
import numpy as np


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    x = features.reshape(features.shape[0], -1)        # NHWC -> (B, H*W*C)

    h1 = np.einsum("bi,ij->bj", x, W1) + b1
    h1 = np.maximum(h1, 0.0)

    h2 = np.einsum("bj,jk->bk", h1, W2) + b2
    h2 = np.maximum(h2, 0.0)

    # no activation here: these are logits
    return np.einsum("bk,kc->bc", h2, W3) + b3
