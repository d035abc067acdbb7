import numpy as np

# My small layer library from the training assignment. Every layer keeps its parameters, their gradients and
# the SGD momentum, all allocated up front with np.zeros. Inference only calls forward() with the pretrained
# weights, so none of those buffers is ever written to.


class Dense:
    def __init__(self, n_in, n_out):
        self.params = {"W": np.zeros((n_in, n_out)), "b": np.zeros(n_out)}
        self.grads = {"W": np.zeros((n_in, n_out)), "b": np.zeros(n_out)}
        self.velocity = {"W": np.zeros((n_in, n_out)), "b": np.zeros(n_out)}
        self.cache = None

    def forward(self, x, params=None):
        p = self.params if params is None else params
        self.cache = x  # kept for backward()
        return x @ p["W"] + p["b"]

    def backward(self, grad_out):
        self.grads["W"][...] = self.cache.T @ grad_out
        self.grads["b"][...] = grad_out.sum(axis=0)
        return grad_out @ self.params["W"].T

    def step(self, lr=0.01, momentum=0.9):
        for name in self.params:
            self.velocity[name] *= momentum
            self.velocity[name] -= lr * self.grads[name]
            self.params[name] += self.velocity[name]


class ReLU:
    def forward(self, x):
        self.mask = x > 0
        return x * self.mask


class Sequential:
    def __init__(self, *layers):
        self.layers = layers

    def forward(self, x, weights):
        dense = iter(weights)
        for layer in self.layers:
            x = layer.forward(x, next(dense)) if isinstance(layer, Dense) else layer.forward(x)
        return x


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    model = Sequential(Dense(W1.shape[0], W1.shape[1]), ReLU(),
                       Dense(W2.shape[0], W2.shape[1]), ReLU(),
                       Dense(W3.shape[0], W3.shape[1]))
    weights = [{"W": W1, "b": b1}, {"W": W2, "b": b2}, {"W": W3, "b": b3}]
    return model.forward(x, weights)
