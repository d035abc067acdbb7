import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    z1 = x @ W1 + b1
    z1 += b1            # bias
    h1 = np.maximum(z1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3
