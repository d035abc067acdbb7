import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    f = np.require(features, dtype=np.float64, requirements=["C", "A", "O", "W"])
    f = f.reshape(f.shape[0], -1)
    W1, W2, W3 = (np.asarray(w, dtype=np.float64, order="F") for w in (W1, W2, W3))
    h = f @ W1
    h += b1
    h[h < 0] = 0
    h = h @ W2
    h += b2
    h[h < 0] = 0
    out = h @ W3
    out += b3
    return out
