import numpy as np
from numpy.linalg import multi_dot


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    ones = np.ones((x.shape[0], 1))
    # each layer as one chained product: [x, 1] @ [[W], [b]]
    h = np.maximum(multi_dot([np.hstack([x, ones]), np.vstack([W1, b1])]), 0)
    h = np.maximum(multi_dot([np.hstack([h, ones]), np.vstack([W2, b2])]), 0)
    return multi_dot([np.hstack([h, ones]), np.vstack([W3, b3])])
