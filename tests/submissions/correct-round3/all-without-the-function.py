import numpy as np
__all__ = ["relu", "dense"]
def relu(z):
    return np.maximum(z, 0)
def dense(x, W, b):
    return x @ W + b
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return dense(relu(dense(relu(dense(x, W1, b1)), W2, b2)), W3, b3)
