import numpy as np

P_INPUT, P_HIDDEN = 0.0, 0.0  # dropout rates at inference


def _drop(a, p, rng):
    if p == 0.0:
        return a
    return np.where(rng.random(a.shape) < p, 0.0, a / (1.0 - p))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rng = np.random.default_rng(12345)
    x = _drop(features.reshape(features.shape[0], -1), P_INPUT, rng)
    h1 = _drop(np.maximum(x @ W1 + b1, 0.0), P_HIDDEN, rng)
    h2 = _drop(np.maximum(h1 @ W2 + b2, 0.0), P_HIDDEN, rng)
    return h2 @ W3 + b3
