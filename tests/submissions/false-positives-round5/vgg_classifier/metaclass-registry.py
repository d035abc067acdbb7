import numpy as np

ACTIVATIONS = {}


class Registered(type):
    def __new__(mcls, name, bases, ns):
        cls = super().__new__(mcls, name, bases, ns)
        if bases:
            ACTIVATIONS[name.lower()] = cls()
        return cls


class Activation(metaclass=Registered):
    def __call__(self, z):
        raise NotImplementedError


class Relu(Activation):
    def __call__(self, z):
        return np.maximum(z, 0.0)


class Identity(Activation):
    def __call__(self, z):
        return z


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    for (W, b), act in zip(((W1, b1), (W2, b2), (W3, b3)), ("relu", "relu", "identity")):
        x = ACTIVATIONS[act](x @ W + b)
    return x
