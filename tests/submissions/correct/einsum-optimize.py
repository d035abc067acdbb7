import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, H, W, C = features.shape
    # contract the three feature axes directly against W1 viewed as (H, W, C, D1)
    z1 = np.einsum("bhwc,hwcd->bd", features, W1.reshape(H, W, C, -1), optimize=True)
    h1 = np.maximum(z1 + b1, 0.0)
    h2 = np.maximum(np.einsum("bd,de->be", h1, W2, optimize=True) + b2, 0.0)
    return np.einsum("be,ek->bk", h2, W3, optimize="greedy") + b3
