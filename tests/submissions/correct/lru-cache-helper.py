import functools
import numpy as np
@functools.lru_cache(maxsize=None)
def flat_size(h: int, w: int, c: int) -> int:
    return h * w * c
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, H, W, C = features.shape
    x = features.reshape(B, flat_size(H, W, C))
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
