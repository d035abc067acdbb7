import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.clip(x @ W1 + b1, 0, None)
    h2 = (h1 @ W2 + b2).clip(min=0)
    return h2 @ W3 + b3
