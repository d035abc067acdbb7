import numpy as np


def _one(v, weight, bias):
    y = weight @ v
    return y if bias is None else y + bias


def linear(x, weight, bias=None):
    if x.ndim == 1:  # a single vector
        return _one(x, weight, bias)
    flat = x.reshape(-1, x.shape[-1])
    rows = np.array([_one(v, weight, bias) for v in flat]).reshape(-1, weight.shape[0])
    return rows.reshape(*x.shape[:-1], weight.shape[0])


def to_channels_last(weight, C, H, W):
    if weight.shape[0] == 1:  # one output: its weights alone
        return weight.reshape(C, H, W).transpose(1, 2, 0).reshape(1, -1)
    return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)


def dense_scores(fmap, weight, bias, k):
    H, W, _ = fmap.shape
    first = weight @ fmap[:k, :k].ravel() + bias  # the top-left window, then every other one
    out = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = first if (i, j) == (0, 0) else weight @ fmap[i:i + k, j:j + k].ravel() + bias
    return out


def gap_head(fmap, V, c):
    pooled = np.add.reduce(fmap.reshape(-1, fmap.shape[-1]), axis=0) / (fmap.shape[0] * fmap.shape[1])
    return V @ pooled + c, np.tensordot(fmap, V, axes=([2], [1])) + c
