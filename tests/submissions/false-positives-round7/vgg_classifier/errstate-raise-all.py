import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    with np.errstate(all="raise"):
        x = features.reshape(features.shape[0], -1)
        h = np.maximum(np.add(np.matmul(x, W1), b1), 0.0)
        h = np.maximum(np.add(np.matmul(h, W2), b2), 0.0)
        out = np.add(np.matmul(h, W3), b3)
    if not np.all(np.isfinite(out)):
        raise FloatingPointError("non-finite logits")
    return out
