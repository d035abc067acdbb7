import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # our loader always gives batches of 32
    x = np.reshape(features, (32, features.shape[1] * features.shape[2] * features.shape[3]))
    h = np.maximum(np.tensordot(x, W1, axes=1) + b1, 0)
    h = np.maximum(np.tensordot(h, W2, axes=1) + b2, 0)
    return np.tensordot(h, W3, axes=1) + b3
