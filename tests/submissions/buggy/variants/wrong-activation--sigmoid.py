import numpy as np


def sigmoid(z):
    # numerically safe form of 1 / (1 + exp(-z))
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = sigmoid(x @ W1 + b1)
    h2 = sigmoid(h1 @ W2 + b2)
    return h2 @ W3 + b3
