import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    elu = lambda z: np.where(z > 0, z, np.exp(z) - 1)
    x = features.reshape(features.shape[0], -1)
    return elu(elu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
