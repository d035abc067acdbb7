import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3, chunk=1024):
    x = features.reshape(features.shape[0], -1)
    z = np.zeros((x.shape[0], W1.shape[1]))
    for s in range(0, x.shape[1], chunk):
        z += x[:, s:s + chunk] @ W1[s:s + chunk]
    h = np.maximum(z + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
