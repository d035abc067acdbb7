import numpy as np
CALLS = 0
LAST_SHAPE = None
RELU_FLOOR = 0.0
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    global CALLS, LAST_SHAPE
    CALLS += 1
    LAST_SHAPE = features.shape
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, RELU_FLOOR)
    h = np.maximum(h @ W2 + b2, RELU_FLOOR)
    return h @ W3 + b3
