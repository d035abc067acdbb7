import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    nchw = np.moveaxis(features, -1, 1)          # as PyTorch would hold it
    nhwc = np.moveaxis(nchw, 1, -1)              # back to channels last
    x = np.ascontiguousarray(nhwc).reshape(nhwc.shape[0], -1, order="C")
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
