import numpy as np


def _affine(rows, W, b):
    Wl, bl = W.tolist(), b.tolist()
    return [[sum(r[i] * Wl[i][j] for i in range(len(r))) + bl[j] for j in range(len(bl))] for r in rows]


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = [f.ravel().tolist() for f in features]
    rows = [[max(v, 0.0) for v in r] for r in _affine(rows, W1, b1)]
    rows = [[max(v, 0.0) for v in r] for r in _affine(rows, W2, b2)]
    return np.array(_affine(rows, W3, b3))
