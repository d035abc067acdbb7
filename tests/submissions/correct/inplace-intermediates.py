import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)

    h = x @ W1          # new array, safe to modify
    h += b1
    np.maximum(h, 0, out=h)

    g = h @ W2
    g += b2
    np.maximum(g, 0, out=g)

    y = g @ W3
    y += b3
    return y
