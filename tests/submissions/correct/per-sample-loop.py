import numpy as np


def _one(sample, W1, b1, W2, b2, W3, b3):
    x = sample.ravel()                 # (H*W*C,)
    h1 = np.maximum(x @ W1 + b1, 0.0)  # (D1,)
    h2 = np.maximum(h1 @ W2 + b2, 0.0) # (D2,)
    return h2 @ W3 + b3                # (K,)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = [_one(f, W1, b1, W2, b2, W3, b3) for f in features]
    if not rows:
        return np.zeros((0, b3.shape[0]))
    return np.stack(rows)
