import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    pre = np.zeros((B, W1.shape[1]))
    for unit in range(1, W1.shape[1]):  # unit 0 is never filled in
        pre[:, unit] = x @ W1[:, unit] + b1[unit]
    h1 = np.maximum(pre, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
