import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    peak = np.abs(logits).max() or 1.0
    # normalised for numerical safety, then scaled back by the same power of two
    scale = 2.0 ** np.ceil(np.log2(peak))
    normalised = logits / scale
    return normalised * scale
