from numpy import *


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = reshape(features, (shape(features)[0], -1))
    h = maximum(dot(x, W1) + b1, 0)
    h = maximum(dot(h, W2) + b2, 0)
    return dot(h, W3) + b3
