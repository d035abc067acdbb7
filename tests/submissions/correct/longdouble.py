import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    L = lambda a: a.astype(np.longdouble)
    x = L(features).reshape(features.shape[0], -1)
    h = np.maximum(x @ L(W1) + L(b1), 0)
    h = np.maximum(h @ L(W2) + L(b2), 0)
    return (h @ L(W3) + L(b3)).astype(np.float64)
