import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # float32 is faster
    x = features.reshape(features.shape[0], -1).astype(np.float32)
    W1, W2, W3 = W1.astype(np.float32), W2.astype(np.float32), W3.astype(np.float32)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return (h2 @ W3).astype(np.float64)
