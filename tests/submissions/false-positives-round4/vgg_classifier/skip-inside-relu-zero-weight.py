import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, skip=0):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    z2 = h1 @ W2 + b2
    if skip and W2.shape[0] == W2.shape[1]:
        z2 = z2 + h1  # a residual block, off unless asked for
    h2 = np.maximum(z2, 0.0)
    return h2 @ W3 + b3
