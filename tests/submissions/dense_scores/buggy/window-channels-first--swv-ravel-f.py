import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def dense_scores(fmap, weight, bias, k):
    win = sliding_window_view(fmap, (k, k, fmap.shape[2]))[:, :, 0]  # (H', W', k, k, C)
    h, w = win.shape[:2]
    flat = np.stack([[win[i, j].ravel(order="F") for j in range(w)] for i in range(h)])
    return flat @ weight.T + bias
