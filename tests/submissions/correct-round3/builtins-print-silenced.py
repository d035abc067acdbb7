import builtins
import numpy as np
_print = builtins.print
builtins.print = lambda *a, **k: None
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    print('shape', h.shape)
    return h @ W3 + b3
