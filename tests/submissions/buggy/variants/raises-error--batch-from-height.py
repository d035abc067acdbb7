import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # "number of images" read from the first image instead of from the batch: that is H
    n_images = features[0].shape[0]
    x = np.reshape(features, (n_images, -1))
    h1 = np.maximum(0.0, np.dot(x, W1) + b1)
    h2 = np.maximum(0.0, np.dot(h1, W2) + b2)
    return np.dot(h2, W3) + b3
