import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def dense_scores(fmap, weight, bias, k):
    win = sliding_window_view(fmap, (k, k), axis=(0, 1))  # (H', W', C, k, k)
    kernel = weight.reshape(weight.shape[0], k, k, fmap.shape[2])  # (out, k, k, C): the flatten order
    return np.einsum("ijcuv,ouvc->ijo", win, kernel) + bias
