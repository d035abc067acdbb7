import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    feats = np.ascontiguousarray(features, dtype=np.float64)
    n = feats.shape[0]
    x = feats.reshape(n, feats.size // n if n else 0)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
