import numpy as np


def to_channels_last(weight: np.ndarray, C: int, H: int, W: int) -> np.ndarray:
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)
