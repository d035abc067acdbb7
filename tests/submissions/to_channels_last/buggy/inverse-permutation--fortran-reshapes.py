import numpy as np
# (order='F' everywhere)
def to_channels_last(weight, C, H, W):
    o = weight.shape[0]
    return weight.reshape(o, C, H, W, order="F").transpose(0, 2, 3, 1).reshape(o, -1, order="F")
