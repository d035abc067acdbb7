import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # (B, H, W, C).T is (C, W, H, B); a column-major reshape of it lists c fastest, then w, then h: row-major order
    B = features.shape[0]
    x = features.T.reshape(-1, B, order="F").T
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
