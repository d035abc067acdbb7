import numpy as np

class Dropout:
    def __init__(self, p=0.5):
        self.p = p; self.training = True
    def forward(self, x):
        if not self.training:
            return x
        self.mask = (np.random.rand(*x.shape) > self.p) / (1 - self.p)
        return x * self.mask

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    drop = Dropout()
    x = features.reshape(features.shape[0], -1)
    x = drop.forward(np.maximum(x @ W1 + b1, 0))
    x = drop.forward(np.maximum(x @ W2 + b2, 0))
    return x @ W3 + b3
