import atexit
import faulthandler
import gc
import tracemalloc

import numpy as np

faulthandler.enable()
gc.disable()
tracemalloc.start()
atexit.register(lambda: print("peak", tracemalloc.get_traced_memory()[1]))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

