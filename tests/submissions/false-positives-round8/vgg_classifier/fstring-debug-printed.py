import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    print(f"{features.shape=}")
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    print(f"{h1.shape=}, {(h1 > 0).mean()=:.2f}")
    h2 = np.maximum(h1 @ W2 + b2, 0)
    logits = h2 @ W3 + b3
    print(f"{logits.shape = }")
    return logits
