import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # contract the NHWC map with W1 seen as (H, W, C, D): the same as flattening row-major first
    _, H, W, C = features.shape
    W1_maps = W1.reshape(H, W, C, W1.shape[1])
    h = np.einsum("bhwc,hwcd->bd", features, W1_maps) + b1
    h = np.where(h > 0, h, 0.0)
    h = np.einsum("bd,de->be", h, W2) + b2
    h = np.where(h > 0, h, 0.0)
    return np.einsum("be,ek->bk", h, W3) + b3
