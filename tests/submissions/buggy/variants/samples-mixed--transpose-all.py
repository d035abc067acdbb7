import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = len(features)
    X = features.T.reshape(B, -1)   # make it (features, batch) like in MATLAB, then rows again
    A1 = np.maximum(X.dot(W1) + b1, 0)
    A2 = np.maximum(A1.dot(W2) + b2, 0)
    return A2.dot(W3) + b3
