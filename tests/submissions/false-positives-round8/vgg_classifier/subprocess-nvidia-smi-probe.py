import subprocess

import numpy as np

try:
    subprocess.run(["nvidia-smi"], check=True, capture_output=True)
    HAS_GPU = True
except (FileNotFoundError, subprocess.CalledProcessError):
    HAS_GPU = False


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

