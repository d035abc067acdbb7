import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    h1 = np.empty((B, W1.shape[1])); np.einsum("bi,ij->bj", x, W1, out=h1)
    h1 = np.maximum(h1 + b1, 0)
    h2 = np.empty((B, W2.shape[1])); np.einsum("bi,ij->bj", h1, W2, out=h2)
    h2 = np.maximum(h2 + b2, 0)
    return np.einsum("bi,ij->bj", h2, W3) + b3
