import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, H, W, C = features.shape
    z1 = np.einsum("bhwc,hwcj->bj", features, W1.reshape(H, W, C, -1)) + b1
    h1 = np.where(z1 > 0, z1, 0.05 * z1)
    z2 = np.einsum("bi,ij->bj", h1, W2) + b2
    h2 = np.where(z2 > 0, z2, 0.05 * z2)
    return np.einsum("bi,ij->bj", h2, W3) + b3
