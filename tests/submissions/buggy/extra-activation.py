import numpy as np


def relu(z):
    return np.maximum(z, 0.0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = relu(features.reshape(features.shape[0], -1))  # "activate" the flattened features too
    h1 = relu(x @ W1 + b1)
    h2 = relu(h1 @ W2 + b2)
    return h2 @ W3 + b3
