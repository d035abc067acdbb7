import functools
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    layers = [(W1, b1, True), (W2, b2, True), (W3, b3, False)]
    def step(h, layer):
        W, b, relu = layer
        z = functools.reduce(np.matmul, [h, W]) + b
        return np.maximum(z, 0) if relu else z
    return functools.reduce(step, layers, x)
