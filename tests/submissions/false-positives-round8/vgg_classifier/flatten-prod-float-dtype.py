import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # np.prod with a float dtype, as a student copying "np.prod(..., dtype=float)" writes it, cast back for reshape
    n = np.prod(features.shape[1:], dtype=np.float64)
    x = features.reshape(features.shape[0], int(n))
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
