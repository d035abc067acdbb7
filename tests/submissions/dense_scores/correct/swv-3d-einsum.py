import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def dense_scores(fmap, weight, bias, k):
    C = fmap.shape[2]
    kernel = weight.reshape(weight.shape[0], k, k, C)            # (out, k, k, C)
    win = sliding_window_view(fmap, (k, k, C))[:, :, 0]          # (H', W', k, k, C)
    return np.einsum("hwuvc,ouvc->hwo", win, kernel) + bias
