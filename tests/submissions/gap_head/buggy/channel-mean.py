import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(1, 2))      # (C, H, W) habit: "average over H and W"
    logits = V @ pooled + c
    return logits, fmap @ V.T + c
