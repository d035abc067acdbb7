import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    H, W, C = features.shape[1:]
    h = np.tensordot(features, W1.reshape(H, W, C, -1), axes=3) + b1
    h = np.fmax(h, 0)
    h = np.tensordot(h, W2, axes=1) + b2
    h = np.fmax(h, 0)
    return np.tensordot(h, W3, axes=([1], [0])) + b3
