import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    img = features[0]                  # the feature volume F (H, W, C)
    x = img.reshape(-1)
    h1 = np.maximum(0, x @ W1 + b1)
    h2 = np.maximum(0, h1 @ W2 + b2)
    y = h2 @ W3 + b3
    return y[np.newaxis, :]
