import numpy as np

_out = np.empty(1 << 16)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    shape = (x.shape[0], W3.shape[1])
    if np.prod(shape) > _out.size:
        return h @ W3 + b3
    buf = _out[:np.prod(shape)].reshape(shape)
    np.matmul(h, W3, out=buf)
    buf += b3
    return buf.copy()
