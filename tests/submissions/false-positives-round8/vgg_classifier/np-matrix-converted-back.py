import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.matrix(features.reshape(features.shape[0], -1))
    h = np.maximum(x * np.matrix(W1) + b1, 0)
    h = np.maximum(h * np.matrix(W2) + b2, 0)
    return np.asarray(h * np.matrix(W3) + b3)
