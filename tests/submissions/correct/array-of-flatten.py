import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.array([sample.flatten() for sample in features], dtype=np.float64).reshape(len(features), -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
