import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.reshape(features, (features.shape[0], np.prod(features.shape[1:])))
    z1 = np.einsum("bi,ij->bj", x, W1) + b1[np.newaxis, :]
    a1 = np.where(z1 > 0, z1, 0.0)
    z2 = np.einsum("bi,ij->bj", a1, W2) + b2[np.newaxis, :]
    a2 = np.where(z2 > 0, z2, 0.0)
    return np.einsum("bi,ij->bj", a2, W3) + b3[np.newaxis, :]
