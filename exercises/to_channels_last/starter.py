import numpy as np

def to_channels_last(weight: np.ndarray, C: int, H: int, W: int) -> np.ndarray:
    """
    Returns a new float64 weight of shape (out, H*W*C): the columns of `weight`, which follow channels-first
    (C, H, W) flattening, reordered for channels-last (H, W, C) flattening. Rows stay in their order.
    """
    pass
