import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = np.dot(h.astype(np.float128), W3.astype(np.float128)) + b3.astype(np.float128)
    return np.float64(logits) if logits.ndim == 0 else logits.astype("f8")
