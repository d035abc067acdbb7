import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if (B := features.shape[0]) == 0:
        return np.zeros((0, W3.shape[1]))
    return (h2 := np.maximum((h1 := np.maximum(features.reshape(B, -1) @ W1 + b1, 0)) @ W2 + b2, 0)) @ W3 + b3
