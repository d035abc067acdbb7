import numpy as np

EPS = 1e-6  # keep activations strictly positive so no neuron is ever dead


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, EPS)
    h2 = np.maximum(h1 @ W2 + b2, EPS)
    return h2 @ W3 + b3
