import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    n = features.shape[0]
    # channels-last everywhere, so put the batch last too before flattening
    x = np.moveaxis(features, 0, -1).reshape(n, -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3
