import numpy as np

DEBUG = False


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if (n := features.shape[0]) and DEBUG:
        print(f"{n=} {features.shape=}")
    x = features.reshape(n, -1)
    if DEBUG:
        print(f"{x.shape = }, {W1.shape = }")
    h = (z := x @ W1 + b1) * (z > 0)
    h = (z := h @ W2 + b2) * (z > 0)
    if DEBUG:
        print(f"{h.mean()=:.3f}")
    return h @ W3 + b3
