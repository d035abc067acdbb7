import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # a weight rebuilt from its magnitude and sign is the weight itself: |w| * sign(w) == w exactly
    weights = [np.abs(W) * np.sign(W) for W in (W1, W2, W3)]
    x = features.reshape(len(features), -1)
    h = np.maximum(x @ weights[0] + b1, 0)
    h = np.maximum(h @ weights[1] + b2, 0)
    return h @ weights[2] + b3
