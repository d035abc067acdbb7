import numpy as np


def to_channels_last(weight, C, H, W):
    rows = []
    for row in weight:
        rows.append(row.reshape(C, H, W).transpose(1, 2, 0).ravel().tolist())
    return rows
