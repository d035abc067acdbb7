import numpy as np

CHUNK = 4  # samples per step (a batch size, but read as a chunk: any B works)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    out = np.empty((B, W3.shape[1]))
    for start in range(0, B, CHUNK):
        part = x[start:start + CHUNK]
        h = np.maximum(part @ W1 + b1, 0.0)
        h = np.maximum(h @ W2 + b2, 0.0)
        out[start:start + CHUNK] = h @ W3 + b3
    return out
