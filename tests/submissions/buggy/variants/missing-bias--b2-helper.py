import numpy as np
def layer(x, W, b=None, relu=True):
    y = x @ W
    if b is not None:
        y = y + b
    return np.maximum(y, 0) if relu else y
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = layer(x, W1, b1)
    h = layer(h, W2)
    return layer(h, W3, b3, relu=False)
