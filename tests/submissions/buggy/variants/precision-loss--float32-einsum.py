import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    f = features.astype(np.float32)
    h = np.einsum("bhwc,hwck->bk", f, W1.astype(np.float32).reshape(*f.shape[1:], -1)) + b1.astype(np.float32)
    h = np.maximum(h, 0)
    h = np.maximum(np.einsum("bi,ik->bk", h, W2.astype(np.float32)) + b2.astype(np.float32), 0)
    out = np.einsum("bi,ik->bk", h, W3.astype(np.float32)) + b3.astype(np.float32)
    return out.astype(np.float64)
