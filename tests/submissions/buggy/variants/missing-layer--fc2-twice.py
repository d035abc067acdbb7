import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    h = features.reshape(features.shape[0], -1)
    h = np.maximum(h @ W1 + b1, 0.0)
    for _ in range(2):                  # the two 4096-wide layers
        h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
