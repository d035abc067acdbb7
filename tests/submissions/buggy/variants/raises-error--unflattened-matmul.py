import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # the first layer is a matrix product with the features
    h1 = np.maximum(features @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3
