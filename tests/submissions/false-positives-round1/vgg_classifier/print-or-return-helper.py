import numpy as np
def peek(a):
    return print("shape:", a.shape) or a
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = peek(features.reshape(features.shape[0], -1))
    h = peek(np.maximum(x @ W1 + b1, 0))
    h = peek(np.maximum(h @ W2 + b2, 0))
    return peek(h @ W3 + b3)
