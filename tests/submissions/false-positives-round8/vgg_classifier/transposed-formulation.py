import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # column-vector convention, as in the lecture notes: h = relu(W^T x + b), then transposed back
    X = features.reshape(features.shape[0], -1).T            # (D, B)
    H1 = np.maximum(W1.T @ X + b1[:, None], 0)
    H2 = np.maximum(W2.T @ H1 + b2[:, np.newaxis], 0)
    return (W3.T @ H2 + b3.reshape(-1, 1)).T
