import numpy as np


def vgg_classifier(*args):
    features, *params = args
    h = features.reshape(features.shape[0], -1)
    layers = list(zip(params[0::2], params[1::2]))
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h
