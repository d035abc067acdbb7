import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    H, W, C = features.shape[1:]
    W1_grid = W1.reshape(H, W, C, W1.shape[1])
    h1 = np.maximum(np.tensordot(features, W1_grid, axes=3) + b1, 0)
    h2 = np.maximum(np.tensordot(h1, W2, axes=1) + b2, 0)
    return np.tensordot(h2, W3, axes=([1], [0])) + b3
