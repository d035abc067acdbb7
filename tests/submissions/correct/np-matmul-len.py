import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    h1 = np.maximum(np.matmul(x, W1) + b1, 0.0)
    h2 = np.maximum(np.matmul(h1, W2) + b2, 0.0)
    return np.add(np.matmul(h2, W3), b3)
