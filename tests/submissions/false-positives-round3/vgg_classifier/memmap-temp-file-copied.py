import tempfile
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    with tempfile.TemporaryFile() as f:  # the hidden layer spilled to disk, as for a big batch
        h = np.memmap(f, dtype=np.float64, mode="w+", shape=(x.shape[0], W1.shape[1]))
        np.matmul(x, W1, out=h)
        h += b1
        np.maximum(h, 0, out=h)
        h2 = np.maximum(np.asarray(h) @ W2 + b2, 0)
        del h
    out = np.memmap(tempfile.TemporaryFile(), dtype=np.float64, mode="w+", shape=(x.shape[0], W3.shape[1]))
    out[...] = h2 @ W3 + b3
    return np.array(out)
