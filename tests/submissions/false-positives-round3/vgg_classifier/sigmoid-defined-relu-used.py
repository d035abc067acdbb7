import numpy as np

ACTIVATIONS = {
    "relu": lambda z: np.maximum(z, 0.0),
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(-z)),
    "softmax": lambda z: np.exp(z - z.max(-1, keepdims=True)) / np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True),
}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3, activation="relu"):
    act = ACTIVATIONS[activation]
    x = features.reshape(features.shape[0], -1)
    h = act(x @ W1 + b1)
    h = act(h @ W2 + b2)
    return h @ W3 + b3
