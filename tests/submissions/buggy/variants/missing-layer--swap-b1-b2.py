import numpy as np


def fc(x, W, b, relu=True):
    y = np.matmul(x, W) + b
    return np.maximum(y, 0.0) if relu else y


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = fc(x, W1, b2)
    h2 = fc(h1, W2, b1)
    return fc(h2, W3, b3, relu=False)
