import numpy as np
class VGG:
    RELU = staticmethod(lambda z: np.maximum(z, 0))
    @classmethod
    def head(cls, x, params):
        *hidden, last = params
        for W, b in hidden:
            x = cls.RELU(x @ W + b)
        W, b = last
        return x @ W + b
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return VGG.head(features.reshape(features.shape[0], -1), [(W1, b1), (W2, b2), (W3, b3)])
