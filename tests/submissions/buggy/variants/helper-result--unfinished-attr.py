import numpy as np


def flatten(features):
    n = features.shape[0]
    flat = features.reshape(n, -1)
    # TODO return


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = flatten(features)
    h = np.maximum(x.dot(W1) + b1, 0)
    h = np.maximum(h.dot(W2) + b2, 0)
    return h.dot(W3) + b3
