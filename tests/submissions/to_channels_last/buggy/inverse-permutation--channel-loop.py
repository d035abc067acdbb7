import numpy as np
# gather and scatter swapped in the channel loop
def to_channels_last(weight, C, H, W):
    HW = H * W
    new = np.zeros_like(weight)
    for c in range(C):
        new[:, c * HW:(c + 1) * HW] = weight[:, c::C]
    return new
