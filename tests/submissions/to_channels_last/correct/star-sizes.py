import numpy as np
def to_channels_last(weight, *sizes, **kw):
    C, H, W = sizes
    out, n = weight.shape
    assert n == C * H * W
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, n)
