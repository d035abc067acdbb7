import numpy as np


def relu(z):
    # (z + |z|) / 2 is z for positive z and 0 otherwise
    return (z + np.abs(z)) / 2


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
