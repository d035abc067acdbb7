import numpy as np
# squeeze: K = 1 gives a 0-d logit
def gap_head(fmap, V, c):
    logits = np.squeeze(V @ fmap.mean(axis=(0, 1), keepdims=True).reshape(-1, 1)) + c
    return np.squeeze(logits), fmap @ V.T + c
