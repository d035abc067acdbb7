import numpy as np


def dropout(h, p=0.5, seed=0):
    rng = np.random.default_rng(seed)
    mask = rng.random(h.shape[-1]) >= p
    return h * mask / (1 - p)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = dropout(np.maximum(x @ W1 + b1, 0))
    h2 = dropout(np.maximum(h1 @ W2 + b2, 0))
    return h2 @ W3 + b3
