import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    features = np.asarray(features, dtype=float)
    W1, W2, W3 = (w.astype(np.float64, copy=False) for w in (W1, W2, W3))
    b1, b2, b3 = map(np.float64, (b1, b2, b3))
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, np.float64(0))
    h = np.maximum(h @ W2 + b2, np.float64(0))
    return np.float64(1.0) * (h @ W3 + b3)
