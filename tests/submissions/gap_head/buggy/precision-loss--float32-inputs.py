import numpy as np
def gap_head(fmap, V, c):
    f, v, b = fmap.astype(np.float32), V.astype(np.float32), c.astype(np.float32)
    logits = v @ f.mean(axis=(0, 1)) + b
    cam = f @ v.T + b
    return logits.astype(np.float64), cam.astype(np.float64)
