import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    n = np.prod(features.shape[1:])
    x = np.reshape(features, (np.size(features, 0), n))
    h = np.maximum(np.add(np.dot(x, W1), b1), 0.0)
    h = np.maximum(np.add(np.dot(h, W2), b2), 0.0)
    return np.add(np.dot(h, W3), b3)
