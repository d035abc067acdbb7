import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # NHWC -> NCHW so the flatten matches torch.flatten(x, 1)
    x = features.transpose(0, 3, 1, 2)
    x = x.reshape(x.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
