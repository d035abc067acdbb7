import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    z = x @ W1 + b1
    z = np.maximum(z, 0.01 * z)
    z = z @ W2 + b2
    z = np.maximum(z, 0.01 * z)
    return z @ W3 + b3
