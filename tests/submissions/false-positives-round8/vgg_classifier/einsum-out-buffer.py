import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    h1 = np.empty((B, W1.shape[1]))
    np.einsum("ij,jk->ik", x, W1, out=h1)
    h1 += b1
    np.maximum(h1, 0, out=h1)
    h2 = np.einsum("ij,jk->ik", h1, W2) + b2
    np.maximum(h2, 0, out=h2)
    return np.einsum("ij,jk->ik", h2, W3) + b3
