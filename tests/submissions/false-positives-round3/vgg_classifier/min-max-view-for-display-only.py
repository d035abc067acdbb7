import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    low = logits.min(axis=1, keepdims=True)
    spread = np.ptp(logits, axis=1, keepdims=True)
    display = (logits - low) / np.where(spread == 0, 1, spread)  # a heat map's colours, never returned
    del display
    return logits
