import numpy as np
# ravel_multi_index with the dims in another order
def to_channels_last(weight, C, H, W):
    h, w, c = np.unravel_index(np.arange(C * H * W), (H, W, C))
    src = np.ravel_multi_index((c, w, h), (C, W, H))
    return weight[:, src]
