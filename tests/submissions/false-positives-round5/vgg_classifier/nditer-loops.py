import numpy as np


def _affine(x, W, b):
    out = np.empty((x.shape[0], W.shape[1]))
    with np.nditer(out, flags=["multi_index"], op_flags=["writeonly"]) as it:
        for cell in it:
            i, j = it.multi_index
            cell[...] = np.dot(x[i], W[:, j]) + b[j]
    return out


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(_affine(x, W1, b1), 0)
    h = np.maximum(_affine(h, W2, b2), 0)
    return _affine(h, W3, b3)
