import numpy as np

_scratch = bytearray(1 << 22)  # reused for the hidden layers only


def _hidden(shape):
    n = int(np.prod(shape))
    if n * 8 > len(_scratch):
        return np.empty(shape)
    return np.frombuffer(_scratch, dtype=np.float64, count=n).reshape(shape)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = _hidden((x.shape[0], W2.shape[1]))
    np.matmul(h1, W2, out=h2)
    h2 += b2
    np.maximum(h2, 0, out=h2)
    return h2 @ W3 + b3  # a new array: the scratch is never handed out
