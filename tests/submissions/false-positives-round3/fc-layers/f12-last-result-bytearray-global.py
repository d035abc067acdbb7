import numpy as np

_last = {}  # each function's latest result storage, kept for a debugging print


def _fresh(values):
    storage = bytearray(values.nbytes)
    out = np.frombuffer(storage, dtype=np.float64, count=values.size).reshape(values.shape)
    out[...] = values
    return storage, out


def linear(x, weight, bias=None):
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    _last["linear"], out = _fresh(y)
    return out


def to_channels_last(weight, C, H, W):
    y = weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
    _last["to_channels_last"], out = _fresh(y)
    return out


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    y = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            y[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
    _last["dense_scores"], out = _fresh(y)
    return out


def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    _last["gap_head"], out = _fresh(cam)
    return out.mean(axis=(0, 1)), out
