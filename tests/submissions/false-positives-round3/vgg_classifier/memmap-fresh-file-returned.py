import tempfile
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    # a new unnamed file for every call: no two results share their storage
    out = np.memmap(tempfile.TemporaryFile(), dtype=np.float64, mode="w+", shape=logits.shape)
    out[...] = logits
    return out.view(np.ndarray)
