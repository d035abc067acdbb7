import numpy as np


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    # Chen: make it a batch of rows, then one matmul (tested with x of shape (8, 5))
    rows = x.reshape(-1, weight.shape[1])
    out = rows @ weight.T
    if bias is not None:
        out = out + bias
    return out
