import numpy as np


class VGGClassifier:
    def __init__(self):
        self.calls = 0

    def __call__(self, features, W1, b1, W2, b2, W3, b3):
        self.calls += 1
        x = features.reshape(features.shape[0], -1)
        for i, (W, b) in enumerate(((W1, b1), (W2, b2), (W3, b3))):
            x = x @ W + b
            if i < 2:
                np.maximum(x, 0, out=x)
        return x

    def __repr__(self):
        return f"VGGClassifier(calls={self.calls})"


vgg_classifier = VGGClassifier()
