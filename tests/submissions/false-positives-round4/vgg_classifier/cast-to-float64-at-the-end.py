import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.asarray(features, dtype=np.float64).reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    logits = h2 @ W3 + b3
    return logits.astype(np.float64)
