import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.ravel().reshape(B, -1)
    np.testing.assert_equal(x.shape[1], W1.shape[0])
    z1 = x @ W1 + b1
    h1 = z1 * (z1 > 0)
    z2 = h1 @ W2 + b2
    h2 = z2 * (z2 > 0)
    y = h2 @ W3 + b3
    np.testing.assert_array_equal(y.shape, (B, b3.size))
    return y
