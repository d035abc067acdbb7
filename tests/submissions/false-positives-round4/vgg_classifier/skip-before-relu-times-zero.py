import numpy as np

RESIDUAL_SCALE = 0.0


def _match(h, width):
    # a ResNet-style identity shortcut, padded or cut to the layer's width
    return np.pad(h, ((0, 0), (0, max(0, width - h.shape[1]))))[:, :width]


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    z2 = h1 @ W2 + b2 + RESIDUAL_SCALE * _match(h1, W2.shape[1])  # inside the ReLU, scaled to nothing
    h2 = np.maximum(z2, 0.0)
    return h2 @ W3 + b3 + RESIDUAL_SCALE * _match(h2, W3.shape[1])
