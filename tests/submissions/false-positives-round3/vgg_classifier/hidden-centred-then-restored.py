import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    mu = h1.mean(axis=1, keepdims=True)
    centred = h1 - mu
    h2 = np.maximum((centred + mu) @ W2 + b2, 0)
    return h2 @ W3 + b3
