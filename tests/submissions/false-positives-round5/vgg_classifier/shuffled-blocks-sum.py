import numpy as np

_rng = np.random.default_rng()


def _dense(x, W, b, blocks=4):
    """x @ W computed block by block over the inner dimension, the blocks added in a random order."""
    n = x.shape[1]
    edges = np.linspace(0, n, min(blocks, n) + 1).astype(int)
    out = np.zeros((x.shape[0], W.shape[1]))
    for k in _rng.permutation(len(edges) - 1):
        lo, hi = edges[k], edges[k + 1]
        out += x[:, lo:hi] @ W[lo:hi]
    return out + b


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(_dense(x, W1, b1), 0)
    h = np.maximum(_dense(h, W2, b2), 0)
    return _dense(h, W3, b3)
