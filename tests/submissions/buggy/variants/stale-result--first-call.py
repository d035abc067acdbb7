"""Computes the logits on the first call only and returns them ever after (a global filled once)."""
import numpy as np

LOGITS = None


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    global LOGITS
    if LOGITS is None:
        hidden = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)
        hidden = np.maximum(hidden @ W2 + b2, 0)
        LOGITS = hidden @ W3 + b3
    return LOGITS
