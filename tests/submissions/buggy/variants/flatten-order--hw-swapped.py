import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    # go over the image column by column
    x = features.transpose(0, 2, 1, 3).reshape(B, -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
