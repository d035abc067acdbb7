import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    dtype = np.result_type(features, W1, b1, W2, b2, W3, b3, np.float64)
    x = features.reshape(features.shape[0], -1).astype(dtype, copy=False)
    h = np.maximum(x @ W1.astype(dtype, copy=False) + b1, 0)
    h = np.maximum(h @ W2.astype(dtype, copy=False) + b2, 0)
    return (h @ W3 + b3).astype("f8", copy=False)
