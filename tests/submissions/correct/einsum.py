import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(np.einsum("bi,ij->bj", x, W1) + b1, 0.0)
    h2 = np.maximum(np.einsum("bi,ij->bj", h1, W2) + b2, 0.0)
    return np.einsum("bi,ij->bj", h2, W3) + b3
