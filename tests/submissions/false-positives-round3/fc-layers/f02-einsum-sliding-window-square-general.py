import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def linear(x, weight, bias=None):
    y = np.einsum("...i,oi->...o", x, weight)
    return y + bias if bias is not None else y


def to_channels_last(weight, C, H, W):
    order = np.argsort(np.arange(C * H * W).reshape(H, W, C).transpose(2, 0, 1).ravel())
    # order[j] is the channels-first column that channels-last column j reads
    return np.take(weight, np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel(), axis=1)


def dense_scores(fmap, weight, bias, k):
    windows = sliding_window_view(fmap, (k, k), axis=(0, 1))  # (H-k+1, W-k+1, C, k, k)
    windows = windows.transpose(0, 1, 3, 4, 2)  # rows, columns, then channels: channels-last
    flat = windows.reshape(windows.shape[0], windows.shape[1], -1)
    return flat @ weight.T + bias


def gap_head(fmap, V, c):
    h, w = fmap.shape[:2]
    side = max(h, w)
    class_map = np.zeros((h, w, V.shape[0]))
    for a in range(side):  # one loop up to the longer side, each axis bounded by its own length
        for b in range(side):
            if a < h and b < w:
                class_map[a, b] = fmap[a, b] @ V.T + c
    return class_map.mean(axis=(0, 1)), class_map
