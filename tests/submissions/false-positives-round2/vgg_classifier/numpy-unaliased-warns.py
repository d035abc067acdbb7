import warnings
import numpy


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] > 64:
        warnings.warn("large batch: this may be slow", RuntimeWarning)
    x = numpy.reshape(features, (features.shape[0], -1))
    h = numpy.maximum(numpy.matmul(x, W1) + b1, 0.0)
    h = numpy.maximum(numpy.matmul(h, W2) + b2, 0.0)
    return numpy.matmul(h, W3) + b3


warnings.warn("vgg_classifier: remember to check your shapes", UserWarning)
