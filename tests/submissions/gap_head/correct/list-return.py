import numpy as np

def gap_head(fmap, V, c):
    cmap = np.einsum("hwc,kc->hwk", fmap, V) + c
    logits = np.einsum("kc,c->k", V, fmap.mean((0, 1))) + c
    return [logits, cmap]
