import functools
import numpy as np
def _head(features, W1, b1, W2, b2, W3, b3, activation):
    x = features.reshape(features.shape[0], -1)
    h = activation(x @ W1 + b1)
    h = activation(h @ W2 + b2)
    return h @ W3 + b3
vgg_classifier = functools.partial(_head, activation=lambda z: np.maximum(z, 0))
