import numpy as np
try:
    from sklearn.neural_network._base import relu as sk_relu
    def relu(z):
        out = z.copy()
        sk_relu(out)
        return out
except ImportError:
    def relu(z):
        return np.maximum(z, 0)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
