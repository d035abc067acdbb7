import numpy as np
from collections import namedtuple
Head = namedtuple("Head", ["logits", "class_map"])
def gap_head(fmap, V, c):
    cam = np.matmul(fmap, V.T) + c
    return Head(np.matmul(V, fmap.mean(axis=(0, 1))) + c, cam)
