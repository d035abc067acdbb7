import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    features = np.array(features, order="C", copy=True)
    W1, W2, W3 = (np.asarray(W, order="F") for W in (W1, W2, W3))
    x = features.reshape(features.shape[0], -1)   # row-major, on a C-ordered copy
    h = np.maximum(np.dot(x, W1) + b1, 0)
    h = np.maximum(np.dot(h, W2) + b2, 0)
    return np.asfortranarray(np.dot(h, W3) + b3)
