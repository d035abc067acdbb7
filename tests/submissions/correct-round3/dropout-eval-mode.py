import numpy as np
rng = np.random.default_rng(42)
def dropout(h, p=0.5, training=False):
    """Inverted dropout as in VGG's head; at inference it is the identity."""
    if not training or p == 0:
        return h
    mask = rng.random(h.shape) >= p
    return h * mask / (1 - p)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3, training=False):
    x = features.reshape(features.shape[0], -1)
    h = dropout(np.maximum(x @ W1 + b1, 0), training=training)
    h = dropout(np.maximum(h @ W2 + b2, 0), training=training)
    return h @ W3 + b3
