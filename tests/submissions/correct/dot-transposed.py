import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    X = features.reshape(features.shape[0], -1)
    Z1 = np.dot(W1.T, X.T).T + b1
    A1 = Z1.clip(min=0)
    Z2 = np.dot(W2.T, A1.T).T + b2
    A2 = Z2.clip(min=0)
    return np.dot(W3.T, A2.T).T + b3
