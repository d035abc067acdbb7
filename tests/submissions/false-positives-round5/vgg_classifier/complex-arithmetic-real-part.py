import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # a leftover from a Fourier exercise: everything in complex128, the real part returned
    x = features.reshape(features.shape[0], -1).astype(np.complex128)
    h = x @ W1 + b1
    h = np.where(h.real > 0, h.real, 0.0) + 0j
    h = h @ W2 + b2
    h = np.where(h.real > 0, h.real, 0.0) + 0j
    return (h @ W3 + b3).real
