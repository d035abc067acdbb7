import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    nchw = np.moveaxis(features, -1, 1)          # looked at channels-first for a plot
    nhwc = np.moveaxis(nchw, 1, -1)              # and put back before flattening
    x = nhwc.reshape(nhwc.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
