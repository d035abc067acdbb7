import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # first attempt, kept for reference
    raise NotImplementedError
def relu(z):
    return np.maximum(z, 0)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
