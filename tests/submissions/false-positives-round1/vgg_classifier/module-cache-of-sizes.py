import numpy as np
_flat_sizes = {}
def _flat(shape):
    if shape not in _flat_sizes:
        _flat_sizes[shape] = int(np.prod(shape[1:]))
    return _flat_sizes[shape]
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], _flat(features.shape))
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
