import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    z2 = h1 @ W2 + b2
    if z2.shape == h1.shape:  # tried a residual block here; it is taken out again, exactly
        skip = np.zeros_like(h1)
        z2 = z2 + skip
    h2 = np.maximum(z2, 0)
    return h2 @ W3 + b3
