import numpy as np
# side computed with sqrt: assumes H == W
def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    side = int(np.sqrt(weight.shape[1] // C))
    return weight.reshape(out, C, side, side).transpose(0, 2, 3, 1).reshape(out, -1)
