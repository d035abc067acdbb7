import warnings

import numpy as np

LARGE = 10_000_000


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    n = sum(a.size for a in (W1, W2, W3))
    if n > LARGE:
        warnings.warn(f"large weights ({n * 8 / 2**20:.0f} MiB); this may take a while", ResourceWarning)
    if features.shape[0] == 1:
        warnings.warn("batch of one image", UserWarning, stacklevel=2)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
