import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, *, training=False, p_drop=0.5, rng=None):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    if training:
        h *= (rng or np.random.default_rng()).random(h.shape) > p_drop
        h /= 1 - p_drop
    h = np.maximum(h @ W2 + b2, 0)
    if training:
        h *= (rng or np.random.default_rng()).random(h.shape) > p_drop
        h /= 1 - p_drop
    return h @ W3 + b3
