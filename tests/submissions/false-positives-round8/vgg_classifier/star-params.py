import numpy as np


def vgg_classifier(features, *params):
    x = features.reshape(features.shape[0], -1)
    weights, biases = params[0::2], params[1::2]
    for i, (W, b) in enumerate(zip(weights, biases)):
        x = x @ W + b
        if i < len(weights) - 1:
            x = np.maximum(x, 0)
    return x
