import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = x @ W1
    np.add(h, b1, out=h)
    np.maximum(h, 0, out=h)
    g = h @ W2
    np.add(g, b2, out=g)
    g.clip(0, out=g)
    y = np.matmul(g, W3)
    y += b3
    return y
