import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.matmul(x, W1, dtype=np.float64, casting="same_kind") + b1, 0.0, dtype=np.float64)
    h = np.maximum(np.matmul(h, W2, dtype="f8") + b2, np.float64(0))
    return np.add(np.matmul(h, W3, dtype=float), b3, dtype=np.float64)
