import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    h = np.maximum(x @ W1 + b1.reshape(1, -1), 0)
    h = np.maximum(h @ W2 + np.broadcast_to(b2, (B, b2.size)), 0)
    return h @ W3 + b3[np.newaxis, :]
