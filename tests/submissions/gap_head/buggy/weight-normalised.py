import numpy as np

def gap_head(fmap, V, c):
    Vn = V / np.linalg.norm(V, axis=1, keepdims=True)
    pooled = fmap.mean(axis=(0, 1))
    return Vn @ pooled + c, fmap @ Vn.T + c
