import numpy as np


def dropout(h, p=0.5, training=False):
    if not training:
        return h
    keep = np.random.rand(*h.shape) > p
    return h * keep / (1 - p)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, training=False):
    x = features.reshape(features.shape[0], -1)
    h1 = dropout(np.maximum(0, x @ W1 + b1), training=training)
    h2 = dropout(np.maximum(0, h1 @ W2 + b2), training=training)
    return h2 @ W3 + b3
