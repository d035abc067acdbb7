import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    path, _ = np.einsum_path("bi,ij->bj", x, W1, optimize="optimal")
    h = np.einsum("bi,ij->bj", x, W1, optimize=path) + b1
    h = np.maximum(h, 0)
    h = np.einsum("bi,ij->bj", h, W2, optimize="greedy") + b2
    h = np.maximum(h, 0)
    return np.einsum("bi,ij->bj", h, W3, optimize=True) + b3
