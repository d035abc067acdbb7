import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # biases as row vectors (.T does nothing to a 1-D array)
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1.T, 0)
    h2 = np.maximum(h1 @ W2 + b2.T, 0)
    return h2 @ W3 + b3.T
