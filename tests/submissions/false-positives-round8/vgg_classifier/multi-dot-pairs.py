import numpy as np
from numpy.linalg import multi_dot


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.reshape(features, (features.shape[0], np.prod(features.shape[1:])))
    a = np.clip(multi_dot([x, W1]) + b1, 0, None)
    a = np.clip(multi_dot([a, W2]) + b2, 0, None)
    return multi_dot([a, W3]) + b3
