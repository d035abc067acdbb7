import numpy as np
def apply(kind, x, *args):
    match kind:
        case "flatten":
            return x.reshape(x.shape[0], -1)
        case "dense":
            W, b = args
            return x @ W + b
        case "relu":
            return np.maximum(x, 0)
        case _:
            raise ValueError(kind)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    plan = [("flatten",), ("dense", W1, b1), ("relu",), ("dense", W2, b2), ("relu",), ("dense", W3, b3)]
    x = features
    for kind, *args in plan:
        x = apply(kind, x, *args)
    return x
