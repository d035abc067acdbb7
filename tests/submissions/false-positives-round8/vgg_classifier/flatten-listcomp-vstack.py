import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.vstack([img.flatten() for img in features])
    h = np.maximum(x.dot(W1) + b1, 0)
    h = np.maximum(h.dot(W2) + b2, 0)
    return h.dot(W3) + b3
