import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.ascontiguousarray(features.reshape(features.shape[0], -1))
    h1 = np.empty((x.shape[0], W1.shape[1]))
    np.dot(x, W1, out=h1)
    h1 += b1
    h1 = h1.clip(0)
    h2 = np.dot(h1, W2) + b2
    h2 = np.fmax(h2, 0)
    return np.dot(h2, W3) + b3
