import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    def flatten(t):
        return t.reshape(t.shape[0], -1)

    def affine(W, b):
        def apply(x):
            return x @ W + b
        return apply

    def relu_of(f):
        return lambda x: np.maximum(f(x), 0)

    fc1, fc2, fc3 = relu_of(affine(W1, b1)), relu_of(affine(W2, b2)), affine(W3, b3)
    return fc3(fc2(fc1(flatten(features))))
