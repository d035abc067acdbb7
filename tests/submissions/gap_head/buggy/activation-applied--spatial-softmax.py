import numpy as np
# softmax over the positions of each class map (attention habit)
def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    cam = (fmap @ V.T + c).reshape(h * w, -1)
    e = np.exp(cam - cam.max(axis=0))
    return V @ fmap.mean(axis=(0, 1)) + c, (e / e.sum(axis=0)).reshape(h, w, -1)
