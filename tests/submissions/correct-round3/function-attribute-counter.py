import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    vgg_classifier.calls += 1
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
vgg_classifier.calls = 0
vgg_classifier.__doc__ = "VGG16 classifier head (FC-ReLU-FC-ReLU-FC)."
