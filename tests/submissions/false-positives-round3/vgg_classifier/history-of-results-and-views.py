import numpy as np

history = []


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    block = np.empty((2, x.shape[0], W3.shape[1]))  # logits and a spare, in one new block
    block[0] = h @ W3 + b3
    block[1] = 0
    history.append(block)
    return block[0]
