import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, H, W, C = features.shape
    z1 = np.tensordot(features, W1.reshape(H, W, C, -1), axes=3) + b1
    a1 = np.maximum(z1, 0.0)
    z2 = np.tensordot(a1, W2, axes=([1], [0])) + b2
    a2 = np.maximum(z2, 0.0)
    return np.tensordot(a2, W3, axes=1) + b3
