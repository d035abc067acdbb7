import numpy as np
_buf = {}
def _get(name, shape):
    a = _buf.get(name)
    if a is None or a.shape != shape:
        a = _buf[name] = np.empty(shape)
    return a
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = features.reshape(B, -1)
    h1 = _get("h1", (B, W1.shape[1]))
    np.dot(x, W1, out=h1); h1 += b1; np.maximum(h1, 0, out=h1)
    h2 = _get("h2", (B, W2.shape[1]))
    np.dot(h1, W2, out=h2); h2 += b2; np.maximum(h2, 0, out=h2)
    o = _get("o", (B, W3.shape[1]))
    np.dot(h2, W3, out=o); o += b3
    return np.array(o, copy=True)
