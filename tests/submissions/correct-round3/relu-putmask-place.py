import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = x @ W1 + b1
    np.putmask(h, h < 0, 0.0)
    h = h @ W2 + b2
    np.place(h, h < 0, 0.0)
    return h @ W3 + b3
