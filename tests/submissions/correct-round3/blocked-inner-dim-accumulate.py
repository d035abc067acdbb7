import numpy as np
BLOCK = 1024
def blocked_matmul(a, b, block=BLOCK):
    out = np.zeros((a.shape[0], b.shape[1]))
    for k in range(0, a.shape[1], block):
        out += a[:, k:k + block] @ b[k:k + block]
    return out
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(blocked_matmul(x, W1) + b1, 0)
    h = np.maximum(blocked_matmul(h, W2) + b2, 0)
    return blocked_matmul(h, W3) + b3
