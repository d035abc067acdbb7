import importlib.metadata
import platform
import socket

import numpy as np

print("numpy", importlib.metadata.version("numpy"), "on", platform.platform(), socket.gethostname())
try:
    print("torch", importlib.metadata.version("torch"))
except importlib.metadata.PackageNotFoundError:
    print("no torch")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

