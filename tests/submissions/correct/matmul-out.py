import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    h1 = np.empty((B, W1.shape[1]))
    np.matmul(x, W1, out=h1)
    np.add(h1, b1, out=h1)
    np.maximum(h1, 0, out=h1)
    h2 = np.empty((B, W2.shape[1]))
    np.matmul(h1, W2, out=h2)
    np.add(h2, b2, out=h2)
    np.maximum(h2, 0, out=h2)
    y = np.empty((B, W3.shape[1]), dtype=np.float64)
    np.matmul(h2, W3, out=y)
    y += b3
    return y
