import numpy as np


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    if bias is None:
        bias = np.zeros(weight.shape[0])
    if x.ndim == 1:
        return weight.dot(x) + bias
    if x.ndim == 2:
        return x.dot(weight.T) + bias
    shape = x.shape
    y = linear(x.reshape(-1, shape[-1]), weight, bias)
    return y.reshape(*shape[:-1], -1)
