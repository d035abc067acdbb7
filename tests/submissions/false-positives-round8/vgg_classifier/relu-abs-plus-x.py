import numpy as np


def relu(x):
    return (abs(x) + x) / 2


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(len(features), -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
