import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    # identical images in a batch are computed once and their logits repeated
    distinct, inverse = np.unique(x, axis=0, return_inverse=True)
    h = np.maximum(distinct @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return (h @ W3 + b3)[np.ravel(inverse)]
