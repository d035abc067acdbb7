import math
import numpy as np


def linear(x, weight, bias=None):
    x2 = np.atleast_2d(x)
    rows = []
    for v in x2.reshape(-1, x2.shape[-1]):
        row = [math.fsum(v * w) + (0.0 if bias is None else bias[j]) for j, w in enumerate(weight)]
        rows.append(row)
    y = np.array(rows, dtype=float)
    return y.reshape(x.shape[:-1] + (weight.shape[0],))
