import numpy as np


def gap_head(fmap, V, c):
    F = fmap.sum(axis=(0, 1))          # F_k = sum_{x,y} f_k(x, y), Zhou et al. (2016) eq. 1
    logits = V @ F + c
    cam = fmap @ V.T                   # M_c(x, y) = sum_k w_k^c f_k(x, y)
    return logits, cam
