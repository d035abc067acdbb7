import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B, H, W, C = features.shape
    x = np.zeros((B, H * W * C))
    for b in range(B):
        k = 0
        for c in range(C):
            for h in range(H):
                for w in range(W):
                    x[b, k] = features[b, h, w, c]
                    k += 1
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3
