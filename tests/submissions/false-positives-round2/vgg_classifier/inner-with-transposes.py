import numpy as np

relu = lambda z: z * (z > 0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # np.inner sums over the last axis of both arguments, so the weights go in transposed (out, in)
    x = features.reshape(features.shape[0], -1)
    h = relu(np.inner(x, W1.T) + b1)
    h = relu(np.inner(h, W2.T) + b2)
    return np.inner(h, W3.T) + b3
