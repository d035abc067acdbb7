import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = np.reshape(features, (B, -1), order="C")
    z = x @ W1 + np.broadcast_to(b1, (B, b1.shape[0]))
    h = np.fmax(z, 0)
    z = h @ W2 + np.tile(b2, (B, 1))
    h = np.where(z > 0, z, 0)
    return h @ W3 + np.repeat(b3[None, :], B, axis=0)
