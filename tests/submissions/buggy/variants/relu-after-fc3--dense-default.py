import numpy as np


def dense(x, W, b, activation=True):
    y = x @ W + b
    if activation:
        y = np.maximum(y, 0)
    return y


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    h = features.reshape(features.shape[0], -1)
    for W, b in zip((W1, W2, W3), (b1, b2, b3)):
        h = dense(h, W, b)
    return h
