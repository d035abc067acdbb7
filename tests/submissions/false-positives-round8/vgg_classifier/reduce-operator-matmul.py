import functools
import operator

import numpy as np


def _dense(x, layer):
    W, b, relu = layer
    z = operator.add(operator.matmul(x, W), b)
    return operator.mul(z, operator.gt(z, 0)) if relu else z


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    layers = ((W1, b1, True), (W2, b2, True), (W3, b3, False))
    return functools.reduce(_dense, layers, features.reshape(features.shape[0], -1))
