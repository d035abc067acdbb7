import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    h1 = np.einsum("bi,ij", x, W1) + b1          # implicit output 'bj'
    h1 *= h1 > 0
    h2 = np.einsum(h1, [0, 1], W2, [1, 2], [0, 2]) + b2   # sublist form
    h2 = h2 * (h2 > 0)
    return np.einsum(h2, [Ellipsis, 1], W3, [1, 2], [Ellipsis, 2]) + b3
