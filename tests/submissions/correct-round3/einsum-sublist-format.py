import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.einsum(x, [0, 1], W1, [1, 2], [0, 2]) + b1, 0)
    h = np.maximum(np.einsum(h, [0, 1], W2, [1, 2], [0, 2]) + b2, 0)
    return np.einsum(h, [Ellipsis, 1], W3, [1, 2], [Ellipsis, 2]) + b3
