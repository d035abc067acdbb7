"""Linear layer -- Amara O.

einsum with an ellipsis: '...' stands for however many leading axes x has.
"""
import numpy as np


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    y = np.einsum("...i,oi->...o", x, weight)  # o = output unit, i = input feature
    if bias is not None:
        y = y + bias
    return y
