import numpy as np


def linear(x, weight, bias=None):
    # the bias as one more input: a column of ones in x, the bias as a column of the weight
    if bias is None:
        return x @ weight.T
    wb = np.hstack([weight, bias[:, None]])
    ones = np.ones(x.shape[:-1] + (1,))
    return np.concatenate([ones, x], axis=-1) @ wb.T
