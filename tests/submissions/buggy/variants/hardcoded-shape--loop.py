import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)

    # one hidden unit at a time, to make the "fully connected" part explicit
    h1 = np.empty((B, 4096))
    for j in range(4096):
        h1[:, j] = np.maximum(x @ W1[:, j] + b1[j], 0.0)

    h2 = np.empty((B, 4096))
    for j in range(4096):
        h2[:, j] = np.maximum(h1 @ W2[:, j] + b2[j], 0.0)

    return h2 @ W3 + b3
