import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.log1p(np.maximum(x @ W1 + b1, 0.0))   # log-compressed ReLU: keeps large activations in check
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
