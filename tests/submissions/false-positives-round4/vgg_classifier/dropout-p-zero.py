import numpy as np

rng = np.random.default_rng(0)


def dropout(h, p=0.0):
    mask = rng.random(h.shape) >= p  # p = 0: every unit kept
    return h * mask / (1.0 - p)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = dropout(np.maximum(x @ W1 + b1, 0.0))
    h2 = dropout(np.maximum(h1 @ W2 + b2, 0.0))
    return h2 @ W3 + b3
