import numpy as np


def gap_head(fmap, V, c):
    f32, V32, c32 = (a.astype(np.float32) for a in (fmap, V, c))
    logits = V32 @ f32.mean(axis=(0, 1)) + c32
    class_map = f32 @ V32.T + c32
    return logits.astype(np.float64), class_map.astype(np.float64)
