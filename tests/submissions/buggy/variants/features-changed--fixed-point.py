import numpy as np

FRACTION_BITS = 12


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    # fixed-point features, as on a small accelerator: integer counts of 2**-12
    q = (x * (1 << FRACTION_BITS)).astype(np.int64)
    h1 = np.maximum(q @ W1 / (1 << FRACTION_BITS) + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
