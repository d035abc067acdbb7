import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    batch = features.shape[0]
    logits = np.zeros((batch, W3.shape[1]))
    for i in range(batch):
        x = features[i].flatten()  # C order: H, then W, then C fastest
        h1 = np.maximum(np.dot(x, W1) + b1, 0)
        h2 = np.maximum(np.dot(h1, W2) + b2, 0)
        logits[i, :] = np.dot(h2, W3) + b3
    return logits
