import gc
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    z = x @ W1 + b1
    h = np.maximum(z, 0)
    del z, x
    gc.collect()
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
