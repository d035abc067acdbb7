import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.asmatrix(features.reshape(features.shape[0], -1))
    h = np.maximum(x * np.asmatrix(W1) + b1, 0)
    h = np.maximum(h * np.asmatrix(W2) + b2, 0)
    return np.asarray(h * np.asmatrix(W3) + b3)
