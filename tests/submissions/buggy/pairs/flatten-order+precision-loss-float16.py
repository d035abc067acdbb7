import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    half = [a.astype(np.float16) for a in (features, W1, b1, W2, b2, W3, b3)]
    f, W1, b1, W2, b2, W3, b3 = half
    x = f.reshape(f.shape[0], -1, order="F")
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return (h2 @ W3 + b3).astype(np.float64)
