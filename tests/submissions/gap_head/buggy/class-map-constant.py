import numpy as np

def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    logits = V @ fmap.mean(axis=(0, 1)) + c
    class_map = np.broadcast_to(logits, (h, w, len(c)))
    return logits, class_map
