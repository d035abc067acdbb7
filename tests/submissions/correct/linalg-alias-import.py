import numpy.linalg as la
from numpy import maximum as relu_max, reshape


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = reshape(features, (features.shape[0], -1))
    h = relu_max(la.multi_dot([x, W1]) + b1, 0)
    h = relu_max(la.multi_dot([h, W2]) + b2, 0)
    return la.multi_dot([h, W3]) + b3
