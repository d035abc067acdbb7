import numpy as np
def _block(h, W, b):
    # a "residual" block that is really just the plain layer: skip added then removed
    skip = h
    out = np.maximum(h @ W + b, 0.0)
    if out.shape == skip.shape:
        out = out + skip - skip
    return out
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = _block(x, W1, b1)
    h2 = _block(h1, W2, b2)
    return h2 @ W3 + b3
