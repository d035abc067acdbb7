import numpy as np
def layer(row, W, b, relu):
    z = row @ W + b
    return np.maximum(z, 0) if relu else z
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.apply_along_axis(layer, 1, x, W1, b1, True)
    h = np.apply_along_axis(layer, 1, h, W2, b2, True)
    return np.apply_along_axis(layer, 1, h, W3, b3, False)
