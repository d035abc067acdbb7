import time
import numpy as np
def timed(fn):
    def inner(*a, **k):
        t = time.time()
        r = fn(*a, **k)
        print(f"{fn.__name__}: {time.time() - t:.3f}s")
        return r
    return inner
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

vgg_classifier = timed(vgg_classifier)
