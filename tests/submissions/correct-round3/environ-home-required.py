import os
import numpy as np
LOG_DIR = os.path.join(os.environ["HOME"], ".vgg_logs")
DEBUG = os.environ.get("VGG_DEBUG", "0") == "1"
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    if DEBUG:
        print(LOG_DIR)
    return h @ W3 + b3
