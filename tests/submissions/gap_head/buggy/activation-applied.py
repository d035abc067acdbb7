import numpy as np
# softmax applied to the logits
def gap_head(fmap, V, c):
    z = V @ fmap.mean(axis=(0, 1)) + c
    e = np.exp(z - z.max())
    return e / e.sum(), fmap @ V.T + c
