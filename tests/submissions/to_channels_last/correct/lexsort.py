import numpy as np
def to_channels_last(weight, C, H, W):
    c, h, w = np.meshgrid(np.arange(C), np.arange(H), np.arange(W), indexing="ij")
    order = np.lexsort((c.ravel(), w.ravel(), h.ravel()))
    return weight[:, order]
