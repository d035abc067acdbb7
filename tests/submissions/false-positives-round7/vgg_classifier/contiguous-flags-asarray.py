import numpy as np


def _prep(a):
    if not isinstance(a, np.ndarray):
        raise TypeError("numpy arrays only")
    a = np.asarray(a, dtype=np.float64)
    if not a.flags['C_CONTIGUOUS']:
        a = np.ascontiguousarray(a)
    return a


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    assert features.ndim == 4, "features must be NHWC"
    features, W1, b1, W2, b2, W3, b3 = map(_prep, (features, W1, b1, W2, b2, W3, b3))
    x = np.array(features, dtype=np.float64, copy=True).reshape(features.shape[0], -1)
    assert x.flags.c_contiguous and x.flags.writeable
    a1 = x.dot(W1)
    a1 += b1
    np.maximum(a1, 0, out=a1)
    a2 = a1.dot(W2)
    a2 += b2
    np.maximum(a2, 0, out=a2)
    out = a2.dot(W3)
    out += b3
    return np.asarray(out, dtype=np.float64)
