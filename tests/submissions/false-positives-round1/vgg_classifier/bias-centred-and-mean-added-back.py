import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    # centre the bias and add its mean back: the same bias
    b1c = b1 - b1.mean()
    h = np.maximum(x @ W1 + b1c + b1.mean(), 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
