import numpy as np

def to_channels_last(weight, C, H, W):
    out_features, in_features = weight.shape
    assert in_features == C * H * W
    return np.swapaxes(weight.reshape(out_features, C, -1), 1, 2).reshape(out_features, -1)
