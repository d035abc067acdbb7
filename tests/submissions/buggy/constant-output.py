import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # TODO: the three layers; a placeholder of the right shape for now
    return np.zeros((features.shape[0], W3.shape[1]))
