import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # sums in extended precision, handed back as float64
    x = features.reshape(features.shape[0], -1).astype(np.longdouble)
    h = np.maximum(x @ W1.astype(np.longdouble) + b1, 0)
    h = np.maximum(h @ W2.astype(np.longdouble) + b2, 0)
    return (h @ W3.astype(np.longdouble) + b3).astype(np.float64)
