import numpy as np
try:
    from sklearn.utils.extmath import safe_sparse_dot as dot
except ImportError:
    dot = np.dot
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(dot(x, W1) + b1, 0)
    h = np.maximum(dot(h, W2) + b2, 0)
    return dot(h, W3) + b3
