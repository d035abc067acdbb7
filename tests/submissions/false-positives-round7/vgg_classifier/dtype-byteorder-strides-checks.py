import numpy as np

_F8 = np.dtype("<f8")


def _check(name, a, ndim):
    if not isinstance(a, np.ndarray) or isinstance(a, np.matrix):
        raise TypeError(f"{name} must be an ndarray")
    if a.dtype != _F8 or not a.dtype.isnative or a.dtype.kind != "f" or a.itemsize != 8:
        raise TypeError(f"{name} must be little-endian float64, got {a.dtype.str}")
    if a.ndim != ndim or 0 in a.shape:
        raise ValueError(f"{name} has shape {a.shape}")
    if not a.flags.aligned:
        raise ValueError(f"{name} is not aligned")
    if a.strides[-1] != a.itemsize:
        a = np.ascontiguousarray(a)
    return a


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    features = _check("features", features, 4)
    W1, W2, W3 = (_check(n, w, 2) for n, w in zip(("W1", "W2", "W3"), (W1, W2, W3)))
    b1, b2, b3 = (_check(n, b, 1) for n, b in zip(("b1", "b2", "b3"), (b1, b2, b3)))
    n = int(np.prod(features.shape[1:]))
    if (n, len(b1)) != W1.shape or (len(b1), len(b2)) != W2.shape or (len(b2), len(b3)) != W3.shape:
        raise ValueError("layer shapes do not chain")
    before = features.copy()
    x = features.reshape(-1, n)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    y = h @ W3 + b3
    assert np.array_equal(before, features), "input modified"
    assert not np.shares_memory(y, features) and y.flags.owndata
    return y
