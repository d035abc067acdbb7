import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    h1 = np.einsum("bhwc,hwcj->bj", features, W1.reshape(*features.shape[1:], -1), optimize=True) + b1
    h1 = np.maximum(h1, 0)
    h2 = np.maximum(np.einsum("bi,ij->bj", h1, W2, optimize=True) + b2, 0)
    return np.einsum("bi,ij->bj", h2, W3, optimize=True) + b3
