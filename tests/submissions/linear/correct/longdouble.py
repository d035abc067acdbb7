import numpy as np


def linear(x, weight, bias=None):
    # extended precision for the accumulation, then back to float64
    xl = np.asarray(x, dtype=np.longdouble)
    wl = np.asarray(weight, dtype=np.longdouble)
    y = np.matmul(xl, wl.T)
    if bias is not None:
        y = y + np.asarray(bias, dtype=np.longdouble)
    return y.astype(np.float64)
