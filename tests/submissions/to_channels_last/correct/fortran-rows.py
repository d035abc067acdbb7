import numpy as np


def to_channels_last(weight, C, H, W):
    rows = []
    for row in weight:
        # in Fortran order the (position, channel) grid is read channel-major: exactly the PyTorch layout
        grid = row.reshape(H * W, C, order="F")
        rows.append(grid.ravel())
    return np.array(rows)
