import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    X = features.reshape(features.shape[0], -1)
    W1x = X @ W1 + b1
    W1x = np.maximum(W1x, 0)
    W2x = np.maximum(W1x @ W2 + b2, 0)
    W3x = W2x @ W3 + b3
    return W3x
