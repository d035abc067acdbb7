import numpy as np


def to_channels_last(weight, C, H, W):
    hh, ww, cc = np.indices((H, W, C))
    perm = (cc * H * W + hh * W + ww).ravel()   # target k=(h,w,c) <- source (c,h,w)
    return np.take(weight, perm, axis=1)
