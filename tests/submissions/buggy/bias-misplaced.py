import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    batch = features.shape[0]
    x = features.reshape(batch, -1)
    # the bias is given to np.maximum as the lower bound instead of being added
    h1 = np.maximum(x @ W1, b1)
    h2 = np.maximum(h1 @ W2, b2)
    return h2 @ W3 + b3
