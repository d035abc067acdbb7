import numpy as np


def gap_head(fmap, V, c):
    logits = V @ fmap.mean(axis=(0, 1)) + c
    class_map = fmap @ V.T           # M_c(x, y) = sum_k w_k^c f_k(x, y), as in the CAM paper
    return logits, class_map
