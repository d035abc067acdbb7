import numpy as np


def to_channels_last(weight: np.ndarray, C: int, H: int, W: int) -> np.ndarray:
    # H and W never change order, so treat the H*W positions as one axis and swap it with the channels
    per_channel = weight.reshape(weight.shape[0], C, H * W)
    return per_channel.swapaxes(1, 2).reshape(weight.shape[0], -1).copy()
