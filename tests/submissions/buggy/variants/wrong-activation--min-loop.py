import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    batch = features.shape[0]
    out = np.empty((batch, W3.shape[1]))
    for i in range(batch):
        v = features[i].flatten()
        for W, b in ((W1, b1), (W2, b2)):
            v = np.minimum(v @ W + b, 0)      # ReLU
        out[i] = v @ W3 + b3
    return out
