import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = x @ W1
    np.maximum(h1, 0, out=h1)
    h1 += b1
    h2 = h1 @ W2
    np.maximum(h2, 0, out=h2)
    h2 += b2
    return h2 @ W3 + b3
