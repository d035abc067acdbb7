import numpy as np
try:
    from scipy.linalg.blas import dgemm
    def mm(a, b):
        return dgemm(1.0, a, b)
except ImportError:
    mm = np.matmul
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(mm(x, W1) + b1, 0)
    h = np.maximum(mm(h, W2) + b2, 0)
    return mm(h, W3) + b3
