import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    a = features.reshape(features.shape[0], -1)
    weights, biases = [W1, W2, W3], [b1, b2, b3]
    for k, (W, b) in enumerate(zip(weights, biases), start=1):
        a = np.einsum("nk,km->nm", a, W) + b
        if k < 3:
            a = a * (a > 0)
    return a
