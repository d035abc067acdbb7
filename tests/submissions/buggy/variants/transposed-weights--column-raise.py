import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # column convention from the lecture notes: y = W x + b, one column per sample
    x = features.reshape(features.shape[0], -1).T
    h1 = np.maximum(0, W1 @ x + b1)
    h2 = np.maximum(0, W2 @ h1 + b2)
    return (W3 @ h2 + b3).T
