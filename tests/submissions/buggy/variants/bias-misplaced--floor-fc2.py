import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    a1 = np.maximum(0, x.dot(W1) + b1)
    a2 = np.fmax(a1.dot(W2), b2)  # second layer: bias used as the floor
    return a2.dot(W3) + b3
