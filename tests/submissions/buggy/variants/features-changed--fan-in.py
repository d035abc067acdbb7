import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    fan_in = x.shape[1]
    h1 = np.maximum((x @ W1) / np.sqrt(fan_in) + b1, 0.0)  # scaled like an initialisation rule
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
