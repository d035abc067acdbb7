"""GAP head + CAM -- Ana R."""
import numpy as np


def gap_head(fmap, V, c):
    cam = np.einsum("hwc,kc->hwk", fmap, V) + c     # the 1x1 convolution at every position
    return cam.mean(axis=(0, 1)), cam
