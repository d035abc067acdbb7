import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = []
    for sample in features:  # one image at a time, the bias added for each
        v = sample.ravel()
        v = np.maximum(v @ W1 + b1, 0)
        v = np.maximum(v @ W2 + b2, 0)
        rows.append(v @ W3 + b3)
    return np.stack(rows) if rows else np.zeros((0, W3.shape[1]))
