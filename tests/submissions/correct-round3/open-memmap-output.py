import os, tempfile
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    path = os.path.join(tempfile.gettempdir(), "logits.npy")
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(h.shape[0], W3.shape[1]))
    out[:] = h @ W3 + b3
    out.flush()
    return np.array(out)
