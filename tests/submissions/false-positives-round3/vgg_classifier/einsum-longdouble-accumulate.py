import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.ascontiguousarray(features).reshape(features.shape[0], -1)
    h = np.maximum(np.einsum("bi,io->bo", x, W1, optimize=True) + b1, 0)
    h = np.maximum(np.einsum("bi,io->bo", h, W2, optimize=True) + b2, 0)
    out = np.einsum("bi,io->bo", h, W3, optimize=True) + b3
    return out.astype(np.float64)
