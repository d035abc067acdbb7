import numpy as np
try:
    from numba import njit
except ImportError:
    def njit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]):
            return args[0]
        return lambda f: f
@njit(cache=True)
def relu(a):
    return np.maximum(a, 0.0)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
