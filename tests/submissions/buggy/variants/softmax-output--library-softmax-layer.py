import numpy as np

class Softmax:
    def forward(self, x):
        e = np.exp(x - np.max(x, axis=1, keepdims=True))
        self.out = e / np.sum(e, axis=1, keepdims=True)
        return self.out

class Dense:
    def __init__(self, W, b): self.W, self.b = W, b
    def forward(self, x): return np.dot(x, self.W) + self.b

class ReLU:
    def forward(self, x): return np.maximum(0, x)

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    layers = [Dense(W1, b1), ReLU(), Dense(W2, b2), ReLU(), Dense(W3, b3), Softmax()]
    x = features.reshape(features.shape[0], -1)
    for layer in layers:
        x = layer.forward(x)
    return x
