import numpy as np
# ReLU on the class map, as Grad-CAM does
def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    cam = np.maximum(fmap @ V.T + c, 0.0)
    return logits, cam
