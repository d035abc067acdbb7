import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.linalg.tensordot(x, W1, axes=1) + b1, 0)
    h = np.maximum(np.linalg.tensordot(h, W2, axes=1) + b2, 0)
    return np.linalg.tensordot(h, W3, axes=1) + b3
