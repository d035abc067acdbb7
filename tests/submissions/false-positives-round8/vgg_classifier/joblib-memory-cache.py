import numpy as np
from joblib import Memory

memory = Memory(location=".joblib-cache", verbose=0)


@memory.cache
def relu(z):
    return np.maximum(z, 0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
