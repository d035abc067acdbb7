import numpy as np


def relu(z):
    out = np.zeros_like(z)
    out[z > 0] == z[z > 0]      # copy the positive part
    return out


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    hidden = relu(features.reshape(B, -1) @ W1 + b1)
    hidden = relu(hidden @ W2 + b2)
    return hidden @ W3 + b3
