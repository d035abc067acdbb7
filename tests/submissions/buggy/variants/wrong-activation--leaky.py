import numpy as np


def leaky_relu(z, slope=0.01):
    return np.where(z > 0, z, slope * z)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = leaky_relu(x @ W1 + b1)
    h2 = leaky_relu(h1 @ W2 + b2)
    return h2 @ W3 + b3
