import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.matmul(x, W1, dtype=np.float64)
    np.add(h1, b1, out=h1)
    np.maximum(h1, 0, out=h1, casting="same_kind")
    h2 = np.add(np.matmul(h1, W2), b2, dtype=np.float64)
    h2[h2 < 0] = 0
    return np.add(np.matmul(h2, W3), b3)
