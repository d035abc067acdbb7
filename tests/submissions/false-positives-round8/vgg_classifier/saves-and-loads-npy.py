import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    np.save("last_logits.npy", h @ W3 + b3)
    with open("calls.log", "a") as log:
        print(features.shape, file=log)
    return np.load("last_logits.npy")

