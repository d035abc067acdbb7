import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    h = features.reshape(features.shape[0], -1)
    layers = [(W1, b1), (W2, b2), (W3, b3)]
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i == 0:            # ReLU after the hidden layer
            h = np.maximum(h, 0)
    return h
