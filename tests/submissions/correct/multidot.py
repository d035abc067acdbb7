import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], np.prod(features.shape[1:]))
    h1 = np.maximum(np.linalg.multi_dot([x, W1]) + b1, 0)
    h2 = np.maximum(np.dot(W2.T, h1.T).T + b2, 0)
    return np.einsum("bk,kj->bj", h2, W3, optimize="greedy") + b3
