import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(np.dot(x, W1) + b1, 0.0)
    h2 = np.maximum(np.dot(h1, W2) + b2, 0.0)
    return np.dot(h2, W3) + b3
