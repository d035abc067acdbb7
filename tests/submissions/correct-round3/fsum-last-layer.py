import math
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    out = np.empty((h.shape[0], W3.shape[1]))
    W3t = np.ascontiguousarray(W3.T)
    for i in range(h.shape[0]):
        for k in range(W3.shape[1]):
            out[i, k] = math.fsum(h[i] * W3t[k]) + b3[k]
    return out
