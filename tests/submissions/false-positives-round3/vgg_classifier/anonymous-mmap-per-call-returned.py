import mmap
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    region = mmap.mmap(-1, max(logits.nbytes, 1))  # fresh anonymous memory on every call
    out = np.frombuffer(region, dtype=np.float64, count=logits.size).reshape(logits.shape)
    out[...] = logits
    return out
