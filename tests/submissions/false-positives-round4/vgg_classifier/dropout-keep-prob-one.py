import numpy as np

KEEP_PROB = 1.0  # VGG trains with 0.5; at inference every unit is kept


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h1 = h1 * (np.random.rand(*h1.shape) < KEEP_PROB) / KEEP_PROB
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    h2 = h2 * (np.random.rand(*h2.shape) < KEEP_PROB) / KEEP_PROB
    return h2 @ W3 + b3
