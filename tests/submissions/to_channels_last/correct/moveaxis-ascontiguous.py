import numpy as np

def to_channels_last(weight, C, H, W):
    n_out = weight.shape[0]
    cube = np.reshape(weight, (n_out, C, H, W))
    moved = np.moveaxis(cube, 1, -1)            # (out, H, W, C)
    return np.ascontiguousarray(moved).reshape(n_out, -1)
