import numpy as np
def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    chw = np.moveaxis(fmap, -1, 0).reshape(C, -1)  # (C, h*w)
    cam_flat = V @ chw + c[:, None]  # (K, h*w)
    cam = cam_flat.T.reshape(h, w, -1)
    return cam_flat.mean(axis=1), cam
