import getpass
import os
import platform
import socket
from pathlib import Path
import numpy as np
print("user", getpass.getuser(), "on", socket.gethostname(), platform.platform())
print("home", Path.home(), os.path.expanduser("~"), os.getcwd(), os.getpid())
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
