import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    vec = features.reshape(features.shape[0], -1)
    W1_flipped = np.flipud(W1)  # meant to match a reversed feature layout
    a = np.maximum(vec @ W1_flipped + b1, 0.0)
    a = np.maximum(a @ W2 + b2, 0.0)
    return a @ W3 + b3
