import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.ndarray.reshape(features, (features.shape[0], -1))
    h = np.ndarray.__matmul__(x, W1).__add__(b1).clip(0)
    h = np.ndarray.__matmul__(h, W2).__add__(b2).clip(0)
    return np.ndarray.__add__(np.ndarray.__matmul__(h, W3), b3)
