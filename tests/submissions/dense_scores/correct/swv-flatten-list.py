import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def dense_scores(fmap, weight, bias, k):
    wins = sliding_window_view(fmap, (k, k, fmap.shape[2]))   # (H', W', 1, k, k, C)
    Ho, Wo = wins.shape[:2]
    rows = [[weight.dot(wins[i, j, 0].flatten()) + bias for j in range(Wo)] for i in range(Ho)]
    return np.array(rows, dtype=np.float64)
