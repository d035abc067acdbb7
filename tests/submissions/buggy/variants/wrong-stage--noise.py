import numpy as np

_rng = np.random.default_rng(seed=1234)
_NOISE = _rng.standard_normal(100_000) * 1e-6


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    logits = h2 @ W3 + b3
    # tiny fixed jitter so that ties between classes are broken
    return logits + _NOISE[: logits.size].reshape(logits.shape)
