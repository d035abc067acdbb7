import functools

import numpy as np


def mlp(features, *params, activation=lambda z: np.maximum(z, 0)):
    x = features.reshape(features.shape[0], -1)
    pairs = list(zip(params[::2], params[1::2]))
    for i, (W, b) in enumerate(pairs):
        x = x @ W + b
        if i < len(pairs) - 1:
            x = activation(x)
    return x


vgg_classifier = functools.partial(mlp, activation=functools.partial(np.maximum, 0.0))
