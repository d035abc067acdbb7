import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.stack([np.ravel(sample) for sample in features])
    out = []
    for row in x:
        h = np.maximum(row @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        out.append(h @ W3 + b3)
    return np.array(out)
