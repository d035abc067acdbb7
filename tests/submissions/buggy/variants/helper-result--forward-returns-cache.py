import numpy as np

class FullyConnected:
    def __init__(self, W, b):
        self.W, self.b = W, b
    def forward(self, x):
        self.cache = x
        out = x @ self.W + self.b
        return out, self.cache

def relu(x):
    return np.maximum(x, 0)

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = relu(FullyConnected(W1, b1).forward(x))
    h = relu(FullyConnected(W2, b2).forward(h))
    return FullyConnected(W3, b3).forward(h)
