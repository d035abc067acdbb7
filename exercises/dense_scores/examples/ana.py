"""Dense scores -- Ana P.

Every k x k window at once with sliding_window_view, then the kernel as (out, k, k, C).
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def dense_scores(fmap, weight, bias, k):
    windows = sliding_window_view(fmap, (k, k), axis=(0, 1))      # (H', W', C, k, k)
    kernel = weight.reshape(weight.shape[0], k, k, fmap.shape[2])  # row o of weight, as a k x k x C kernel
    return np.einsum("ijcuv,ouvc->ijo", windows, kernel) + bias
