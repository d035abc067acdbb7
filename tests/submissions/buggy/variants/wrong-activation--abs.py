import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.reshape(features, (features.shape[0], -1))
    # rectify: keep the magnitude of every unit
    h1 = np.abs(np.dot(x, W1) + b1)
    h2 = np.abs(np.dot(h1, W2) + b2)
    return np.dot(h2, W3) + b3
