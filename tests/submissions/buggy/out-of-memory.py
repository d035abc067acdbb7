import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # Every weight read into Python lists of floats first: each float is an object of its own, so the lists take
    # several times the memory of the arrays they came from.
    layers = [(W.tolist(), b.tolist()) for W, b in ((W1, b1), (W2, b2), (W3, b3))]
    x = features.reshape(features.shape[0], -1)
    for n, (W, b) in enumerate(layers):
        x = np.asarray(x) @ np.array(W) + np.array(b)
        if n < 2:
            x = np.maximum(x, 0.0)
    return x
