import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.asarray(features.reshape(features.shape[0], -1), order='F')
    h = np.asfortranarray(np.maximum(x @ W1 + b1, 0))
    h = np.maximum(h @ W2 + b2, 0)
    return np.asarray(h, order='F') @ W3 + b3
