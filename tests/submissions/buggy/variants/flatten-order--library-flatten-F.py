import numpy as np

class Flatten:
    def forward(self, x):
        self.in_shape = x.shape
        return np.reshape(x, (x.shape[0], -1), order="F")   # matches MATLAB's (:)
    def backward(self, d):
        return np.reshape(d, self.in_shape, order="F")

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = Flatten().forward(features)
    for W, b, act in ((W1, b1, True), (W2, b2, True), (W3, b3, False)):
        x = x @ W + b
        if act:
            x = np.maximum(x, 0)
    return x
