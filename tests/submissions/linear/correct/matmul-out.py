import numpy as np
from typing import Optional


def linear(x: np.ndarray, weight: np.ndarray, bias: Optional[np.ndarray] = None) -> np.ndarray:
    out = np.empty(x.shape[:-1] + (weight.shape[0],))
    np.matmul(x, weight.T, out=out)
    if bias is not None:
        out += bias  # in place on our own array only
    return out
