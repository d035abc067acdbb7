import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, rate=0.0):
    gen = np.random.default_rng()
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h1 = h1 * gen.binomial(1, 1.0 - rate, size=h1.shape) * (1.0 / (1.0 - rate))
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    h2 = h2 * gen.binomial(1, 1.0 - rate, size=h2.shape) * (1.0 / (1.0 - rate))
    return h2 @ W3 + b3
