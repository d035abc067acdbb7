import weakref
import numpy as np
_layers = weakref.WeakValueDictionary()
class Layer:
    def __init__(self, W, b, relu):
        self.W, self.b, self.relu = W, b, relu
    def __call__(self, x):
        z = x @ self.W + self.b
        return np.maximum(z, 0) if self.relu else z
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    net = [Layer(W1, b1, True), Layer(W2, b2, True), Layer(W3, b3, False)]
    for i, layer in enumerate(net):
        _layers[i] = layer
    h = features.reshape(features.shape[0], -1)
    for layer in net:
        h = layer(h)
    weakref.finalize(net[0], lambda: None)
    return h
