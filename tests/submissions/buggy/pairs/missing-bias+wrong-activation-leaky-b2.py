import numpy as np


def leaky_relu(z, alpha=0.1):
    return np.maximum(z, alpha * z)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = leaky_relu(x @ W1 + b1)
    h2 = np.maximum(h1 @ W2, 0)
    return h2 @ W3 + b3
