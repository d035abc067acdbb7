import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    z = x @ W1
    z += b1
    np.maximum(z, 0, out=z)
    z2 = z @ W2
    z2 += b2
    np.maximum(z2, 0, out=z2)
    out = z2 @ W3
    out += b3
    return out
