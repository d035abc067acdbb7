import numpy as np

class LeakyReLU:
    def __init__(self, alpha=0.3):   # Keras default
        self.alpha = alpha
    def forward(self, x):
        return np.where(x >= 0, x, self.alpha * x)

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    act = LeakyReLU()
    x = features.reshape(features.shape[0], -1)
    x = act.forward(x @ W1 + b1)
    x = act.forward(x @ W2 + b2)
    return x @ W3 + b3
