import numpy as np


def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    return cam.sum(axis=0).mean(axis=0), cam  # summed over the rows, averaged over the columns only
