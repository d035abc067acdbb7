import numpy as np
def dense(W, b, activation=None):
    def apply(x):
        z = x @ W + b
        return z if activation is None else activation(z)
    return apply
def relu(z):
    return np.maximum(z, 0)
def compose(*fs):
    def run(x):
        for f in fs:
            x = f(x)
        return x
    return run
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    flatten = lambda t: t.reshape(t.shape[0], -1)
    head = compose(flatten, dense(W1, b1, relu), dense(W2, b2, relu), dense(W3, b3))
    return head(features)
