import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    return y


_perms = {}  # kept permutations, keyed on the whole map shape, never on C*H*W alone


def to_channels_last(weight, C, H, W):
    key = (C, H, W)
    if key not in _perms:
        _perms[key] = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
    return weight[:, _perms[key]]


def dense_scores(fmap, weight, bias, k):
    rows, cols, _ = fmap.shape
    grid = np.empty((rows - k + 1, cols - k + 1, weight.shape[0]))
    for top in range(rows - k + 1):
        for left in range(cols - k + 1):
            grid[top, left] = weight @ fmap[top:top + k, left:left + k].reshape(-1) + bias
    return grid


def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    class_map = np.empty((h, w, V.shape[0]))
    for row in range(h):
        for col in range(w):
            class_map[row, col] = V @ fmap[row, col] + c
    logits = V @ fmap.mean(axis=(0, 1)) + c
    return logits, class_map
