import numpy as np


def _flatten(x):
    match x.shape:
        case (b, h, w, c):
            return x.reshape(b, h * w * c)
        case (b, n):
            return x
        case _:
            raise ValueError(f"features must be NHWC, got {x.shape}")


def _layer(x, W, b, act):
    match act:
        case "relu":
            return np.maximum(x @ W + b, 0)
        case None:
            return x @ W + b


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = _flatten(features)
    for W, b, act in [(W1, b1, "relu"), (W2, b2, "relu"), (W3, b3, None)]:
        x = _layer(x, W, b, act)
    return x
